import type { Definition } from "../../definitions/types.js";
import type { Style } from "../io.js";
import { printable } from "./printable.js";
import { wrapHanging } from "./width.js";

/**
 * `/agents`, `/skills`: each definition's name and description, the description wrapped to the
 * terminal's width under itself (a hanging indent), so a long one never runs off the screen or
 * back under the names. Off a terminal (`width` undefined), one line each.
 */
export function listing(
  definitions: readonly Definition[],
  surface: "agent" | "skill" | "command",
  style: Style,
  width?: number,
): string {
  const defs = definitions.filter((d) => d.surface === surface);
  const title = { agent: "subagents", skill: "skills", command: "commands" }[surface];
  if (defs.length === 0) return style.dim(`no ${title}`);
  const prefix = surface === "agent" ? "" : "/";
  const lines = defs.flatMap((d) => {
    const name = `  ${prefix}${printable(d.name, false)}`;
    if (!d.description) return [name];
    const description = printable(d.description.replace(/\s+/g, " ").trim(), false);
    if (width === undefined) return [`${name}${style.dim(` — ${description}`)}`];
    return wrapHanging(`${name} — `, description, width).map((l, i) =>
      i === 0 ? `${name}${style.dim(l.slice(name.length))}` : style.dim(l),
    );
  });
  return [style.bold(`${title}:`), ...lines].join("\n");
}

/** `/help`'s MCP prompts: each `/mcp__server__prompt <args>` and its description; "" when none. */
export function promptListing(
  commands: readonly { name: string; description: string; argumentHint: string }[],
  style: Style,
  width?: number,
): string {
  const prompts = commands.filter((c) => c.name.startsWith("mcp__"));
  if (prompts.length === 0) return "";
  const lines = prompts.flatMap((c) => {
    const name = `  /${printable(c.name, false)}${c.argumentHint ? ` ${printable(c.argumentHint, false)}` : ""}`;
    const description = printable(c.description.replace(/\s+/g, " ").trim(), false);
    if (width === undefined) return [`${name}${style.dim(` — ${description}`)}`];
    return wrapHanging(`${name} — `, description, width).map((l, i) =>
      i === 0 ? `${name}${style.dim(l.slice(name.length))}` : style.dim(l),
    );
  });
  return `${[style.bold("MCP prompts:"), ...lines].join("\n")}\n`;
}
