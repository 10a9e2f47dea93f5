import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Budget, budgetBelow, charge, isCapped, reached, rootBudget } from "../../src/loop/budget.js";

/** A budget is a ceiling like the lists: no chain of hops lets a run spend past any cap above it. */
describe("budgets down the hops", () => {
  it("a run may send a request only while every budget above it has money left", () => {
    fc.assert(
      fc.property(
        fc.option(fc.double({ min: 0.01, max: 10, noNaN: true }), { nil: undefined }),
        fc.array(fc.option(fc.double({ min: 0.01, max: 10, noNaN: true }), { nil: undefined }), {
          maxLength: 5,
        }),
        fc.array(fc.tuple(fc.nat(5), fc.double({ min: 0, max: 3, noNaN: true })), { maxLength: 20 }),
        (rootCap, caps, spends) => {
          const chain: Budget[] = [rootBudget(rootCap)];
          for (const cap of caps) chain.push(budgetBelow(chain.at(-1) as Budget, cap));
          for (const [at, usd] of spends) {
            const b = chain[Math.min(at, chain.length - 1)] as Budget;
            // A request is sent only when nothing above is reached: then it is charged.
            if (reached(b) === undefined) charge(b, usd);
          }
          for (const b of chain) {
            const stop = reached(b);
            for (let up: Budget | undefined = b; up; up = up.parent)
              if (up.spentUsd >= up.capUsd) expect(stop).toBeDefined();
          }
          // What the runs spent never reaches past a cap by more than the one request that crossed it.
          const maxSpend = Math.max(0, ...spends.map(([, usd]) => usd));
          for (const b of chain) expect(b.spentUsd).toBeLessThan(b.capUsd + maxSpend + 1e-9);
          expect(isCapped(chain.at(-1) as Budget)).toBe(
            rootCap !== undefined || caps.some((c) => c !== undefined),
          );
        },
      ),
    );
  });

  it("a child's cap is its own node; without one the child shares its caller's", () => {
    const root = rootBudget(1);
    expect(budgetBelow(root)).toBe(root);
    const child = budgetBelow(root, 0.25);
    charge(child, 0.25);
    expect(reached(child)).toBe(child);
    expect(reached(root)).toBeUndefined();
    expect(root.spentUsd).toBe(0.25);
  });
});
