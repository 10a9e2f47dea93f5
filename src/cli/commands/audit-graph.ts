import type { Audit } from "../../audit/audit.js";
import type { AuditNode } from "../../audit/audit-walk.js";
import { admitsNothing, type Grant, grantKey, grantText } from "../../permissions/capabilities.js";
import { dangerOf } from "../../permissions/dangerous-grants.js";
import type { ToolSpecs } from "../../permissions/types.js";
import { shapedBy } from "./audit-format.js";

const BOX_W = 260;
const BOX_H = 58;
const GAP_X = 210;
const GAP_Y = 16;
const MARGIN = 24;

interface Placed {
  readonly node: AuditNode;
  readonly title: string;
  readonly col: number;
  readonly row: number;
  readonly parent?: Placed;
}

/**
 * The audit as a picture: entry points in the left column, each run a chain reaches one column
 * further right per hop, edges labelled with the hop and what it narrowed, dangerous grants marked
 * in red. One self-contained SVG (no script, no external resource); hover a box for its tools.
 */
export function auditSvg(a: Audit, specs: ToolSpecs): string {
  const placed: Placed[] = [];
  let row = 0;
  for (const e of a.entryPoints) {
    const visit = (node: AuditNode, col: number, parent?: Placed) => {
      const title = parent ? (node.chain[node.chain.length - 1] ?? "") : e.name;
      const p: Placed = { node, title, col, row: row++, ...(parent && { parent }) };
      placed.push(p);
      for (const c of node.children) visit(c, col + 1, p);
    };
    visit(e.root, 0);
    row += 0.5;
  }
  const cols = Math.max(1, ...placed.map((p) => p.col + 1));
  const width = MARGIN * 2 + cols * BOX_W + (cols - 1) * GAP_X;
  const height = MARGIN * 2 + row * (BOX_H + GAP_Y);
  const bypass = a.mode === "bypassPermissions";
  const body = [
    ...placed.flatMap((p) => (p.parent ? [edge(p.parent, p)] : [])),
    ...placed.map((p) => box(p, a, specs, bypass && !p.parent)),
  ];
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="ui-sans-serif, system-ui, sans-serif" font-size="12">`,
    `<style>.box{fill:#f7f8fa;stroke:#8a94a6}.danger{fill:#fdecec;stroke:#c62828;stroke-width:2}.failed{fill:#eeeeee;stroke:#9e9e9e;stroke-dasharray:4 3}.title{font-weight:600}.sub{fill:#444}.warn{fill:#c62828;font-weight:600}.edge{fill:none;stroke:#8a94a6}.label{fill:#555;font-size:11px}</style>`,
    ...body,
    "</svg>",
  ].join("\n");
}

/** The SVG in a page with a heading and a legend; still one file that needs nothing else. */
export function auditHtml(a: Audit, specs: ToolSpecs): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agentmd audit: ${esc(a.projectDir)}</title>
<style>body{font-family:ui-sans-serif,system-ui,sans-serif;margin:24px;color:#222}p{max-width:60em}</style></head>
<body><h1>agentmd audit</h1>
<p>${esc(a.projectDir)} · approval: ${esc(a.mode)} mode · depth limit ${a.maxDepth}. Entry points are on the left; each
hop (Task, Skill, a forked skill) is one column to the right, its edge labelled with the tools it removed and
those it narrowed. Red boxes hold a dangerous grant (a command tool with no pattern, writes outside the project,
fetches to any domain). Hover a box for its tools and the entries that shaped them.</p>
${auditSvg(a, specs)}
</body></html>
`;
}

function x(p: Placed): number {
  return MARGIN + p.col * (BOX_W + GAP_X);
}

function y(p: Placed): number {
  return MARGIN + p.row * (BOX_H + GAP_Y);
}

function box(p: Placed, a: Audit, specs: ToolSpecs, bypass: boolean): string {
  const n = p.node;
  const live = n.grants.filter((g) => !admitsNothing(g));
  const dangers = live.flatMap((g) => dangerOf(g, specs, a.projectDir)?.text ?? []);
  if (bypass) dangers.push("bypassPermissions");
  const cls = n.failed !== undefined ? "failed" : dangers.length > 0 ? "danger" : "box";
  const tools = [...new Set(live.map((g) => g.tool))];
  const notes = [
    ...(n.run?.sandbox ? ["sandboxed"] : []),
    ...(n.depthLimit ? ["depth limit"] : []),
    ...(n.notFollowed?.kind === "inline" ? ["narrows this run"] : []),
  ];
  const sub =
    n.failed !== undefined
      ? "not started"
      : n.notFollowed?.kind === "repeat" && n.notFollowed.same
        ? `same as ${n.notFollowed.of.join(" → ")}`
        : tools.join(", ") || "no tools";
  if (n.notFollowed?.kind === "repeat" && !n.notFollowed.same)
    notes.push(`narrower than ${n.notFollowed.of.join(" → ")}`);
  const tip = [
    n.chain.join(" → "),
    ...(n.failed !== undefined ? [n.failed] : []),
    ...n.grants.map((g) => `${grantText(g, a)}  [${shapedBy(g, a).join(", ")}]`),
  ].join("\n");
  const left = x(p);
  const top = y(p);
  const third =
    dangers.length > 0
      ? text(left + 10, top + 50, "warn", `⚠ ${dangers.join("; ")}`)
      : notes.length > 0
        ? text(left + 10, top + 50, "sub", notes.join(" · "))
        : "";
  return [
    `<g><title>${esc(tip)}</title>`,
    `<rect class="${cls}" x="${left}" y="${top}" width="${BOX_W}" height="${BOX_H}" rx="6"/>`,
    text(left + 10, top + 18, "title", p.title),
    text(left + 10, top + 34, "sub", sub),
    third,
    "</g>",
  ].join("");
}

function edge(from: Placed, to: Placed): string {
  const x1 = x(from) + BOX_W;
  const y1 = y(from) + BOX_H / 2;
  const x2 = x(to);
  const y2 = y(to) + BOX_H / 2;
  const mid = (x1 + x2) / 2;
  const said = [HOP[to.node.kind], ...narrowing(from.node.grants, to.node)];
  const lines = said.flatMap((l) => wrapWords(l, LABEL_ROOM));
  const label =
    lines.length > LABEL_LINES ? [...lines.slice(0, LABEL_LINES - 1), `${lines[LABEL_LINES - 1]} …`] : lines;
  return [
    `<g><title>${esc(`${to.node.chain.join(" → ")}\n${said.join("\n")}`)}</title>`,
    `<path class="edge" d="M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}"/>`,
    ...label.map((l, i) =>
      text(x2 - GAP_X + 8, y2 - 6 - 13 * (label.length - 1 - i), "label", l, LABEL_ROOM),
    ),
    "</g>",
  ].join("");
}

/** Room on an edge: characters a line, lines a label (the rest is in the edge's tooltip). */
const LABEL_ROOM = 30;
const LABEL_LINES = 4;

/** `removes Write, Grep, WebFetch, Task` in lines of at most `room` characters, broken after commas. */
function wrapWords(s: string, room: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of s.split(" ")) {
    const next = line === "" ? word : `${line} ${word}`;
    if (line !== "" && next.length > room) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  return [...lines, line];
}

const HOP = { entry: "", task: "Task", skill: "Skill (inline)", fork: "Skill (fork)" } as const;

/** What a hop changed: `removes Write, Edit`, `narrows Bash`. */
function narrowing(before: readonly Grant[], after: AuditNode): string[] {
  if (after.failed !== undefined) return ["refused"];
  const keys = (gs: readonly Grant[], tool: string) =>
    gs
      .filter((g) => g.tool === tool)
      .map(grantKey)
      .sort()
      .join("\n");
  const tools = [...new Set(before.map((g) => g.tool))];
  const removed = tools.filter((t) => !after.grants.some((g) => g.tool === t));
  const narrowed = tools.filter((t) => !removed.includes(t) && keys(before, t) !== keys(after.grants, t));
  return [
    ...(removed.length > 0 ? [`removes ${removed.join(", ")}`] : []),
    ...(narrowed.length > 0 ? [`narrows ${narrowed.join(", ")}`] : []),
  ];
}

function text(left: number, top: number, cls: string, content: string, room = 38): string {
  const clipped = content.length > room ? `${content.slice(0, room - 1)}…` : content;
  return `<text class="${cls}" x="${left}" y="${top}">${esc(clipped)}</text>`;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
