import type { CustomRule, ToolPermissionSpec } from "./types.js";

/**
 * How a tool's calls are judged is declared by the tool itself, with one of these: the kind of its
 * patterns and the input field they are matched against. The permission engine reads nothing else.
 */
export const judgesCommand = (field: string): ToolPermissionSpec => ({ kind: "command", field });

/**
 * A PATH field. `defaultToCwd` when an absent field means the working folder (Glob, Grep);
 * `family`: the tool whose path rules also bind this one (`Read` for Grep and Glob, `Edit` for Write).
 */
export const judgesPath = (
  field: string,
  options: { readonly defaultToCwd?: boolean; readonly family?: string } = {},
): ToolPermissionSpec => ({ kind: "path", field, ...options });

export const judgesName = (field: string): ToolPermissionSpec => ({ kind: "name", field });

/** The host a `domain:` pattern names (lower case), and whether it names only its subdomains (`*.`). */
export function domainPatternOf(pattern: string): {
  readonly host: string;
  readonly subdomainsOnly: boolean;
} {
  const want = pattern.trim().slice("domain:".length).toLowerCase().replace(/\.$/, "");
  return want.startsWith("*.")
    ? { host: want.slice(2), subdomainsOnly: true }
    : { host: want, subdomainsOnly: false };
}

function validateDomain(pattern: string): string | undefined {
  const m = /^domain:(.+)$/.exec(pattern.trim());
  if (!m) return "domain patterns are 'domain:HOST' or 'domain:*.HOST'";
  const host = (m[1] ?? "").replace(/^\*\./, "");
  return /^[a-z0-9.-]+$/i.test(host) && !host.includes("*") ? undefined : `'${m[1]}' is not a host name`;
}

/**
 * `WebFetch(domain:example.com)` allows that exact host; `WebFetch(domain:*.example.com)` its
 * subdomains (not the host itself). A URL that does not parse cannot be judged.
 */
export const domainRule: CustomRule = {
  validate: validateDomain,
  matches(pattern, value) {
    if (typeof value !== "string" || value === "") return undefined;
    let host: string;
    try {
      host = new URL(value).hostname.toLowerCase().replace(/\.$/, "");
    } catch {
      return undefined;
    }
    const want = domainPatternOf(pattern);
    return want.subdomainsOnly ? host.endsWith(`.${want.host}`) : host === want.host;
  },
};

export const judgesUrl = (field: string): ToolPermissionSpec => ({
  kind: "custom",
  field,
  custom: domainRule,
});

/**
 * WebSearch's patterns, in WebFetch's grammar, name sites as the search API filters its results:
 * `domain:example.com` is example.com and its subdomains, `domain:*.example.com` its subdomains
 * only. A search runs on the API's side, so no call is judged here: the rules become the request's
 * allowed and blocked domains (`searchDomains`). The value judged is a host a result comes from.
 */
export const searchDomainRule: CustomRule = {
  validate: validateDomain,
  matches(pattern, value) {
    if (typeof value !== "string" || !/^[a-z0-9.-]+$/i.test(value)) return undefined;
    const host = value.toLowerCase().replace(/\.$/, "");
    const want = domainPatternOf(pattern);
    return host.endsWith(`.${want.host}`) || (!want.subdomainsOnly && host === want.host);
  },
};

export const judgesSearchDomain = (field: string): ToolPermissionSpec => ({
  kind: "custom",
  field,
  custom: searchDomainRule,
});

/** The value a call is judged on: its declared field (own properties only), or the working folder. */
export function subjectValue(
  spec: ToolPermissionSpec,
  input: Readonly<Record<string, unknown>>,
  cwd: string,
): unknown {
  const v = Object.hasOwn(input, spec.field) ? input[spec.field] : undefined;
  return v === undefined && spec.defaultToCwd ? cwd : v;
}
