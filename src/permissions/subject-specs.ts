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

/**
 * `WebFetch(domain:example.com)` allows that exact host; `WebFetch(domain:*.example.com)` its
 * subdomains (not the host itself). A URL that does not parse cannot be judged.
 */
export const domainRule: CustomRule = {
  validate(pattern) {
    const m = /^domain:(.+)$/.exec(pattern.trim());
    if (!m) return "domain patterns are 'domain:HOST' or 'domain:*.HOST'";
    const host = (m[1] ?? "").replace(/^\*\./, "");
    return /^[a-z0-9.-]+$/i.test(host) && !host.includes("*") ? undefined : `'${m[1]}' is not a host name`;
  },
  matches(pattern, value) {
    if (typeof value !== "string" || value === "") return undefined;
    let host: string;
    try {
      host = new URL(value).hostname.toLowerCase().replace(/\.$/, "");
    } catch {
      return undefined;
    }
    const want = pattern.trim().slice("domain:".length).toLowerCase();
    return want.startsWith("*.") ? host.endsWith(want.slice(1)) : host === want;
  },
};

export const judgesUrl = (field: string): ToolPermissionSpec => ({
  kind: "custom",
  field,
  custom: domainRule,
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
