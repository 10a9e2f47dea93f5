import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProject } from "../../src/definitions/load.js";
import { PERMISSION_MODES, type PermissionMode } from "../../src/definitions/permission-modes.js";
import { approvalPolicy, createApprovals } from "../../src/invocation/approvals.js";
import { childCaller, userCaller } from "../../src/invocation/callers.js";
import { createHopCore } from "../../src/invocation/hop-core.js";
import { prepareRun } from "../../src/invocation/prepare-run.js";
import type { Caller } from "../../src/invocation/run-types.js";
import { resolveSettings } from "../../src/invocation/settings.js";
import { builtinCatalog } from "../../src/invocation/tool-catalog.js";
import { mergeHooks } from "../../src/loop/hooks.js";
import { MODE_ORDER, modeRank, narrowerMode } from "../../src/permissions/mode-order.js";
import { UNRESTRICTED } from "../../src/permissions/permission-list.js";
import type { ToolCall } from "../../src/permissions/types.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

/**
 * A subagent's `permissionMode` is only ever narrower: through any chain of subagents, each run
 * approves in the narrowest mode of the session and every hop above it, and no call is approved
 * more readily below than above. The chain is loaded from files and prepared through `prepareRun`,
 * and the calls judged by the session's real approval tier.
 */
const CATALOG = builtinCatalog();
let dir: string;
let cleanup: () => void;
beforeAll(() => {
  ({ dir, cleanup } = tempDir());
});
afterAll(() => cleanup());

const mode = fc.option(fc.constantFrom(...PERMISSION_MODES), { nil: undefined });

describe("the order of the modes", () => {
  it("is plan < default < acceptEdits < bypassPermissions, and holds every mode", () => {
    expect(MODE_ORDER).toEqual(["plan", "default", "acceptEdits", "bypassPermissions"]);
    expect([...MODE_ORDER].sort()).toEqual([...PERMISSION_MODES].sort());
  });

  it.each([
    ["default", "bypassPermissions", "default"],
    ["default", "plan", "plan"],
    ["acceptEdits", "default", "default"],
    ["plan", "acceptEdits", "plan"],
    ["bypassPermissions", "acceptEdits", "acceptEdits"],
    [undefined, "plan", "plan"],
    ["acceptEdits", undefined, "acceptEdits"],
  ] as const)("caller %s, own %s: %s", (caller, own, expected) => {
    expect(narrowerMode(caller, own)).toBe(expected);
  });

  it("property: a fold over any hops is never wider than any hop, and is one of them", () => {
    fc.assert(
      fc.property(fc.array(mode, { maxLength: 8 }), (hops) => {
        const end = hops.reduce<PermissionMode | undefined>((m, h) => narrowerMode(m, h), undefined);
        const given = hops.filter((h): h is PermissionMode => h !== undefined);
        if (given.length === 0) expect(end).toBeUndefined();
        else expect(given).toContain(end);
        for (const h of given) expect(modeRank(end as PermissionMode)).toBeLessThanOrEqual(modeRank(h));
      }),
    );
  });
});

const PROBES: ToolCall[] = [
  { tool: "Read", input: { file_path: "a.txt" } },
  { tool: "Write", input: { file_path: "a.txt", content: "x" } },
  { tool: "Bash", input: { command: "rm -rf build" } },
  { tool: "WebFetch", input: { url: "https://example.com", prompt: "x" } },
];
const READINESS = { denied: 0, ask: 1, allowed: 2 } as const;

describe("property: no chain of subagents widens the mode it is approved in", () => {
  it("each run's mode is the narrowest of the session's and its hops', and approves no call its caller would not", () => {
    let judged = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...PERMISSION_MODES),
        fc.array(mode, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (session, hops, withMain) => {
          const root = `${dir}/p${judged}`;
          const files: Record<string, string> = withMain
            ? { "agent.md": "---\ntools: Read, Write, Bash, WebFetch, Task\n---\nmain\n" }
            : {};
          hops.forEach((m, i) => {
            files[`agents/a${i}.md`] =
              `---\nname: a${i}\ndescription: hop ${i}\ntools: Read, Write, Bash, WebFetch, Task\n${m ? `permissionMode: ${m}\n` : ""}---\nhop\n`;
          });
          writeFiles(root, files);
          const loaded = loadProject(root, { toolNames: CATALOG.names });
          expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
          const main = loaded.definitions.find((d) => d.surface === "main");
          const core = createHopCore({
            projectDir: root,
            cwd: root,
            home: "/home/u",
            definitions: loaded.definitions,
            catalog: CATALOG,
            settings: resolveSettings({}, main?.surface === "main" ? main : undefined),
            hooks: mergeHooks(),
            denied: UNRESTRICTED,
          });
          const ctx = { specs: CATALOG.specs, projectDir: root, home: "/home/u" };
          const policy = approvalPolicy({
            settings: { allow: [], deny: [], ask: [], additionalDirectories: [] } as never,
            mode: session,
            allow: [],
            mainApproves: withMain,
            workingDirs: [root],
            ctx,
          });
          const tier = createApprovals(policy, ctx, undefined);
          let caller: Caller = userCaller(core);
          let above = tier;
          let narrowest: PermissionMode = session;
          hops.forEach((m, i) => {
            const p = prepareRun(core, caller, { kind: "agent", name: `a${i}`, content: "go" });
            if (p.kind !== "ready") throw new Error(p.message);
            narrowest = narrowerMode(narrowest, m) as PermissionMode;
            const own = p.spec.permissionMode;
            // The spec's bound joined with the session's is the narrowest of the chain.
            expect(narrowerMode(session, own)).toBe(narrowest);
            const here = own ? (tier.within?.({ mode: own }) ?? tier) : tier;
            for (const probe of PROBES) {
              const j = { specs: CATALOG.specs, cwd: root };
              const below = READINESS[here.check(probe, j).kind];
              expect(below).toBeLessThanOrEqual(READINESS[above.check(probe, j).kind]);
              judged++;
            }
            above = here;
            caller = childCaller(p.spec, { list: p.spec.list, hooks: p.spec.hooks });
          });
        },
      ),
      { numRuns: 60 },
    );
    expect(judged).toBeGreaterThan(0);
  });
});
