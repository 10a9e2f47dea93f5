import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide, intersect, type PermissionList } from "../../src/permissions/index.js";
import { webSearchDefinition } from "../../src/tools/index.js";
import { CWD, list, SPECS } from "../support/permissions.js";

/** Whether the API, given this definition, could return a result from `host`. */
function apiAdmits(def: ReturnType<typeof webSearchDefinition>, host: string): boolean {
  if (!def) return false;
  const under = (h: string, d: string) => h === d || h.endsWith(`.${d}`);
  const allowed = def.allowed_domains as string[] | undefined;
  const blocked = def.blocked_domains as string[] | undefined;
  if (allowed) return allowed.some((d) => under(host, d));
  if (blocked) return !blocked.some((d) => under(host, d));
  return true;
}

/** Whether the list allows a result from `host`, by the one evaluator. */
const listAdmits = (l: PermissionList, host: string) =>
  decide(l, { tool: "WebSearch", input: { domain: host } }, { specs: SPECS, cwd: CWD }).kind === "allowed";

/** The filter a request carries: `any`, `allowed: a, b`, `blocked: c`, or `not offered`. */
function shown(allow: string | null, deny?: string): string {
  const def = webSearchDefinition(list(allow, deny));
  if (!def) return "not offered";
  if (def.allowed_domains) return `allowed: ${(def.allowed_domains as string[]).join(", ")}`;
  if (def.blocked_domains) return `blocked: ${(def.blocked_domains as string[]).join(", ")}`;
  return "any";
}

// [allow, deny, the filter sent]
const CASES: [allow: string | null, deny: string, expected: string][] = [
  [null, "", "any"],
  ["WebSearch", "", "any"],
  ["*", "", "any"],
  ["Read", "", "not offered"],
  ["WebSearch", "WebSearch", "not offered"],
  ["WebSearch(domain:example.com)", "", "allowed: example.com"],
  ["WebSearch(domain:Example.COM.)", "", "allowed: example.com"],
  ["WebSearch(domain:example.com), WebSearch(domain:docs.rs)", "", "allowed: docs.rs, example.com"],
  // An API domain covers its subdomains: a subdomain allowed beside its site adds nothing.
  ["WebSearch(domain:example.com), WebSearch(domain:api.example.com)", "", "allowed: example.com"],
  // Subdomains without the site itself cannot be said to the API: left out, never widened.
  ["WebSearch(domain:*.example.com)", "", "not offered"],
  ["WebSearch(domain:*.example.com), WebSearch(domain:docs.rs)", "", "allowed: docs.rs"],
  // A name-only entry next to patterns: the patterns rule, as everywhere.
  ["WebSearch, WebSearch(domain:docs.rs)", "", "allowed: docs.rs"],
  // An entry that cannot be interpreted allows nothing.
  ["WebSearch(docs.rs)", "", "not offered"],
  ["WebSearch(docs.rs), WebSearch(domain:example.com)", "", "allowed: example.com"],
  // Denies: blocked domains when nothing else restricts the search.
  ["WebSearch", "WebSearch(domain:evil.io)", "blocked: evil.io"],
  [null, "WebSearch(domain:evil.io), WebSearch(domain:ads.evil.io)", "blocked: evil.io"],
  // A subdomains-only deny cannot spare the apex: the whole site is blocked (narrower).
  ["WebSearch", "WebSearch(domain:*.evil.io)", "blocked: evil.io"],
  // With allowed domains, a deny removes every allowed domain it touches (the API takes one list).
  [
    "WebSearch(domain:example.com), WebSearch(domain:docs.rs)",
    "WebSearch(domain:example.com)",
    "allowed: docs.rs",
  ],
  [
    "WebSearch(domain:example.com), WebSearch(domain:docs.rs)",
    "WebSearch(domain:ads.example.com)",
    "allowed: docs.rs",
  ],
  ["WebSearch(domain:docs.example.com)", "WebSearch(domain:example.com)", "not offered"],
  ["WebSearch(domain:example.com)", "WebSearch(domain:other.io)", "allowed: example.com"],
  // A deny pattern that cannot be interpreted denies every search.
  ["WebSearch", "WebSearch(evil.io)", "not offered"],
];

describe("web search: the domain filter a list makes, one line per case", () => {
  it.each(CASES)("%s | deny %s → %s", (allow, deny, expected) => {
    expect(shown(allow, deny || undefined)).toBe(expected);
  });

  it("narrows at every hop: caller ∩ callee", () => {
    const hop = (a: string, b: string) => webSearchDefinition(intersect(list(a), list(b)));
    expect(hop("WebSearch(domain:example.com)", "WebSearch(domain:docs.example.com)")).toMatchObject({
      allowed_domains: ["docs.example.com"],
    });
    expect(hop("WebSearch(domain:example.com)", "WebSearch(domain:*.example.com)")).toBeUndefined();
    expect(hop("WebSearch(domain:example.com)", "WebSearch(domain:docs.rs)")).toBeUndefined();
    expect(hop("WebSearch(domain:example.com)", "WebSearch")).toMatchObject({
      allowed_domains: ["example.com"],
    });
    expect(
      webSearchDefinition(intersect(list("WebSearch"), list(null, "WebSearch(domain:evil.io)"))),
    ).toEqual({ type: "web_search_20250305", name: "web_search", blocked_domains: ["evil.io"] });
  });

  it("passes max_uses through", () => {
    expect(webSearchDefinition(list("WebSearch"), { maxUses: 3 })).toEqual({
      type: "web_search_20250305",
      name: "web_search",
      max_uses: 3,
    });
  });
});

// Small alphabets, so that hosts and patterns are often related (equal, above, below).
const LABELS = ["a", "b", "ex", "docs"];
const host = fc
  .array(fc.constantFrom(...LABELS), { minLength: 1, maxLength: 3 })
  .map((parts) => `${parts.join(".")}.io`);
const pattern = fc.tuple(fc.boolean(), host).map(([sub, h]) => `WebSearch(domain:${sub ? "*." : ""}${h})`);
const allowList = fc.oneof(
  fc.constant(null),
  fc.constant("WebSearch"),
  fc.array(pattern, { minLength: 1, maxLength: 4 }).map((ps) => ps.join(", ")),
);
const denyList = fc.array(pattern, { maxLength: 3 }).map((ps) => (ps.length ? ps.join(", ") : undefined));
const aList = fc.tuple(allowList, denyList).map(([a, d]) => list(a, d));

describe("web search: the filter never exceeds the list (property)", () => {
  it("every host the API could return is one the list allows", () => {
    fc.assert(
      fc.property(aList, fc.array(host, { minLength: 1, maxLength: 8 }), (l, hosts) => {
        const def = webSearchDefinition(l);
        expect(def?.allowed_domains !== undefined && def?.blocked_domains !== undefined).toBe(false);
        for (const h of hosts) if (apiAdmits(def, h)) expect(listAdmits(l, h), h).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("holds for intersected lists too", () => {
    fc.assert(
      fc.property(aList, aList, fc.array(host, { minLength: 1, maxLength: 8 }), (a, b, hosts) => {
        const l = intersect(a, b);
        const def = webSearchDefinition(l);
        for (const h of hosts) if (apiAdmits(def, h)) expect(listAdmits(l, h), h).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("loses nothing when the list names whole sites and denies nothing", () => {
    const sites = fc.array(host, { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(sites, fc.array(host, { minLength: 1, maxLength: 8 }), (allowed, hosts) => {
        const l = list(allowed.map((h) => `WebSearch(domain:${h})`).join(", "));
        const def = webSearchDefinition(l);
        for (const h of hosts) expect(apiAdmits(def, h), h).toBe(listAdmits(l, h));
      }),
      { numRuns: 200 },
    );
  });
});
