import { isDomainPattern } from "../definitions/sandbox-field.js";
import type { SandboxInput, SandboxSetting } from "../definitions/types.js";
import { ConfigError } from "../shared/errors.js";

export type { SandboxInput, SandboxSetting } from "../definitions/types.js";

/** The sandbox when it is on without options. */
export const DEFAULT_SANDBOX: SandboxSetting = Object.freeze({ allowedDomains: Object.freeze([]) });

/**
 * The sandbox of a runner: the option given in code or on the command line, else agent.md's, else
 * off. `true` turns it on with agent.md's options when it has some (`--sandbox` keeps agent.md's
 * domains); `false` turns it off; a map is taken as it is. Pure; a domain that is not a host name
 * is configuration to fix (`ConfigError`), as it is in agent.md.
 */
export function resolveSandbox(
  option: SandboxInput | undefined,
  fromFile: SandboxSetting | undefined,
): SandboxSetting | undefined {
  if (option === undefined) return fromFile;
  if (option === false) return undefined;
  if (option === true) return fromFile ?? DEFAULT_SANDBOX;
  const domains = option.allowedDomains ?? [];
  const bad = domains.find((d) => !isDomainPattern(d));
  if (bad !== undefined)
    throw new ConfigError(
      `sandbox.allowedDomains entry '${bad}' is not a host name: write 'example.com' or '*.example.com'`,
    );
  return { allowedDomains: domains.map((d) => d.trim().toLowerCase()) };
}

/**
 * The sandbox of a run started by a caller: on when either side turns it on, never off when the
 * caller's is on. When both have one, a callee reaches no host its caller could not: a domain is
 * kept when the other side's domains cover it too. Pure.
 */
export function joinSandbox(
  caller: SandboxSetting | undefined,
  callee: SandboxSetting | undefined,
): SandboxSetting | undefined {
  if (!caller) return callee;
  if (!callee || callee === caller) return caller;
  const kept = [
    ...caller.allowedDomains.filter((d) => callee.allowedDomains.some((c) => domainCovers(c, d))),
    ...callee.allowedDomains.filter((d) => caller.allowedDomains.some((c) => domainCovers(c, d))),
  ];
  return { allowedDomains: [...new Set(kept)] };
}

/**
 * Whether every host `inner` names is named by `outer` too: `*.example.com` covers `a.example.com`
 * and `*.a.example.com`, never `example.com` itself (WebFetch's reading of `domain:`).
 */
export function domainCovers(outer: string, inner: string): boolean {
  if (outer === inner) return true;
  if (!outer.startsWith("*.")) return false;
  const suffix = outer.slice(1);
  const host = inner.startsWith("*.") ? inner.slice(1) : inner;
  return host.endsWith(suffix) && host.length > suffix.length;
}

/** Whether a host is one a domain pattern names (`example.com`, `*.example.com`). */
export function domainMatches(pattern: string, host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  const p = pattern.toLowerCase().replace(/\.$/, "");
  return p.startsWith("*.") ? h.endsWith(p.slice(1)) && h.length > p.length - 1 : h === p;
}
