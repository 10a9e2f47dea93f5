import type { CustomRule, ToolPermissionSpec, ToolSpecs } from "./types.js";

const field =
  (name: string, fallbackToCwd = false) =>
  (input: Readonly<Record<string, unknown>>, cwd: string): unknown => {
    const v = Object.hasOwn(input, name) ? input[name] : undefined;
    return v === undefined && fallbackToCwd ? cwd : v;
  };

/**
 * `WebFetch(domain:example.com)` allows that exact host; `WebFetch(domain:*.example.com)` its
 * subdomains (not the host itself). A URL that does not parse cannot be judged.
 */
export const webFetchRule: CustomRule = {
  validate(pattern) {
    const m = /^domain:(.+)$/.exec(pattern.trim());
    if (!m) return "WebFetch patterns are 'domain:HOST' or 'domain:*.HOST'";
    const host = (m[1] ?? "").replace(/^\*\./, "");
    return /^[a-z0-9.-]+$/i.test(host) && !host.includes("*") ? undefined : `'${m[1]}' is not a host name`;
  },
  matches(pattern, input) {
    const url = Object.hasOwn(input, "url") ? input.url : undefined;
    if (typeof url !== "string" || url === "") return undefined;
    let host: string;
    try {
      host = new URL(url).hostname.toLowerCase().replace(/\.$/, "");
    } catch {
      return undefined;
    }
    const want = pattern.trim().slice("domain:".length).toLowerCase();
    return want.startsWith("*.") ? host.endsWith(want.slice(1)) : host === want;
  },
};

const path = (name: string, fallbackToCwd = false): ToolPermissionSpec => ({
  kind: "path",
  subject: field(name, fallbackToCwd),
});

/** How each built-in tool's calls are judged. Tools of later issues register the same specs. */
export const BUILTIN_PERMISSION_SPECS: ToolSpecs = new Map<string, ToolPermissionSpec>([
  ["Bash", { kind: "command", subject: field("command") }],
  ["Read", path("file_path")],
  ["Write", path("file_path")],
  ["Edit", path("file_path")],
  ["Glob", path("path", true)],
  ["Grep", path("path", true)],
  ["Task", { kind: "name", subject: field("subagent_type") }],
  ["Skill", { kind: "name", subject: field("skill") }],
  ["WebFetch", { kind: "custom", custom: webFetchRule }],
]);

/** The subject's field, for sentences: `'command'`, `'file_path'`, … */
export const SUBJECT_FIELD: Readonly<Record<string, string>> = {
  Bash: "command",
  Read: "file_path",
  Write: "file_path",
  Edit: "file_path",
  Glob: "path",
  Grep: "path",
  Task: "subagent_type",
  Skill: "skill",
  WebFetch: "url",
};
