import type { Grant } from "./capabilities.js";
import { domainRule } from "./subject-specs.js";
import type { ToolSpecs } from "./types.js";

/** What a reviewer should look at twice: a command tool with no pattern, writes outside the project, fetches to any host. */
export type DangerKind = "any-command" | "write-outside-project" | "any-domain";

export interface Danger {
  readonly kind: DangerKind;
  readonly tool: string;
  /** `Bash runs any command`, … */
  readonly text: string;
}

/**
 * Whether one grant is dangerous, judged from the tools' own declarations (a command subject, a
 * path bound by Edit's rules, a URL judged by domain), so tools added later are judged alike. Pure.
 */
export function dangerOf(g: Grant, specs: ToolSpecs, projectDir: string): Danger | undefined {
  const spec = specs.get(g.tool);
  const constraints = g.rule?.constraints ?? [];
  if (spec?.kind === "command") {
    const any =
      constraints.length === 0 ||
      constraints.every((c) => c.kind === "command" && c.compiled.words.length === 0);
    return any ? { kind: "any-command", tool: g.tool, text: `${g.tool} runs any command` } : undefined;
  }
  if (spec?.kind === "path" && (g.tool === "Edit" || spec.family === "Edit")) {
    const inside = constraints.some((c) => c.kind === "path" && within(c.compiled.base, projectDir));
    if (inside || constraints.some((c) => c.kind === "bad")) return undefined;
    return {
      kind: "write-outside-project",
      tool: g.tool,
      text: `${g.tool} ${constraints.length === 0 ? "writes anywhere" : "writes outside the project"}`,
    };
  }
  if (spec?.custom === domainRule && constraints.length === 0)
    return { kind: "any-domain", tool: g.tool, text: `${g.tool} reaches any domain` };
  return undefined;
}

const within = (child: string, dir: string) => child === dir || child.startsWith(`${dir}/`);
