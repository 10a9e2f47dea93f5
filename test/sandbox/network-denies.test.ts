import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { networkPolicy } from "../../src/sandbox/network-policy.js";
import type { SandboxSetting } from "../../src/sandbox/sandbox-setting.js";
import { list, SPECS } from "../support/permissions.js";

/** The sandbox's `allowedDomains` never reach a host a WebFetch deny names (issue: localhost). */
const reach = (allow: string, deny: string | undefined, host: string, domains: string[]) => {
  const setting: SandboxSetting = { allowedDomains: domains };
  const n = networkPolicy(list(allow, deny), setting, SPECS, "/proj");
  return n.kind === "none" ? "no network" : n.allows(host) ? "reached" : "refused";
};

describe("allowedDomains under WebFetch denies", () => {
  const cases: [
    allow: string,
    deny: string | undefined,
    host: string,
    domains: string[],
    expected: string,
  ][] = [
    ["Bash", "WebFetch(domain:localhost)", "localhost", ["localhost"], "refused"],
    ["Bash", "WebFetch(domain:*.example.com)", "api.example.com", ["*.example.com"], "refused"],
    ["Bash", "WebFetch(domain:*.example.com)", "example.com", ["example.com"], "reached"],
    ["Bash", "WebFetch(domain:evil.com)", "registry.npmjs.org", ["registry.npmjs.org"], "reached"],
    ["Bash, WebFetch", "WebFetch(domain:localhost)", "localhost", ["localhost"], "refused"],
    // A bare WebFetch deny takes the tool away; it names no host.
    ["Bash", "WebFetch", "registry.npmjs.org", ["registry.npmjs.org"], "reached"],
    ["Bash", "mcp__x", "localhost", ["localhost"], "reached"],
  ];
  it.each(cases)("allow %s, deny %s: %s (%o) is %s", (allow, deny, host, domains, expected) => {
    expect(reach(allow, deny, host, domains)).toBe(expected);
  });

  it("says which denied hosts a listed domain leaves out", () => {
    const n = networkPolicy(
      list("Bash", "WebFetch(domain:a.example.com), WebFetch(domain:evil.com)"),
      {
        allowedDomains: ["*.example.com", "registry.npmjs.org"],
      },
      SPECS,
      "/proj",
    );
    expect(n.kind === "proxy" && n.shown).toEqual([
      "*.example.com except a.example.com (sandbox)",
      "registry.npmjs.org (sandbox)",
    ]);
  });

  const label = fc.constantFrom("a", "b", "example", "localhost", "npmjs");
  const host = fc.array(label, { minLength: 1, maxLength: 3 }).map((l) => l.join("."));
  const pattern = fc.tuple(fc.boolean(), host).map(([star, h]) => (star ? `*.${h}` : h));
  it("no host a WebFetch domain deny names is reached, though allowedDomains list it", () => {
    fc.assert(
      fc.property(
        fc.array(pattern, { maxLength: 3 }),
        fc.boolean(),
        host,
        label,
        fc.constantFrom("Bash", "Bash, WebFetch", "Bash, WebFetch(domain:*.example)"),
        (others, star, deniedHost, sub, allow) => {
          const target = star ? `${sub}.${deniedHost}` : deniedHost;
          const deny = `WebFetch(domain:${star ? "*." : ""}${deniedHost})`;
          const domains = [...others, target];
          expect(reach(allow, undefined, target, domains)).toBe("reached");
          expect(reach(allow, deny, target, domains)).toBe("refused");
        },
      ),
    );
  });
});
