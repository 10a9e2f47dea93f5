import type { RunEvent } from "../loop/events.js";
import type { DecisionNote } from "../permissions/decision-note.js";
import { type Call, type Hop, type HopTree, hopTree, type Note, type Turn } from "./hop-tree.js";
import type { Part, SessionPage, ViewNode } from "./view-types.js";

/** A result or input longer than this is cut in the page (the transcript keeps it whole). */
const MAX_TEXT = 20_000;

export interface SessionInput {
  readonly id: string;
  readonly source: "local" | "queue";
  readonly events: readonly RunEvent[];
  readonly skipped: number;
  /** Its run goes on now (its lock is held by a live process, or its job is active). */
  readonly live: boolean;
}

/** A session's page: its facts, its denials and the tree of its hops, as rows to draw. */
export function sessionPage(s: SessionInput): SessionPage {
  const tree = hopTree(s.events);
  const state = stateOf(tree, s.live);
  const first = tree.roots[0];
  return {
    id: s.id,
    source: s.source,
    title: oneLine(first?.input ?? first?.prompt ?? s.id, 200),
    state,
    facts: facts(tree, state),
    denials: tree.denials.map((c) => ({ text: denialLine(c), node: callId(c) })),
    tree: tree.roots.map((h, i) => hopNode(h, i + 1)),
    skipped: s.skipped,
  };
}

/** `running` while its run goes on, else how its last run ended (`interrupted`: cut off). */
export function stateOf(tree: HopTree, live: boolean): string {
  if (live) return "running";
  const last = tree.roots.at(-1);
  return last?.end?.outcome ?? (last ? "interrupted" : "empty");
}

/** What a hop cost, its subagents' included. */
export function paid(hop: Hop): number {
  if (hop.end) return hop.end.costUsd;
  let cost = hop.costUsd;
  for (const e of hop.entries)
    if (e.kind === "turn")
      for (const c of e.turn.entries) if (c.kind === "call") for (const h of c.call.children) cost += paid(h);
  return cost;
}

function facts(tree: HopTree, state: string): [string, string][] {
  const hops = allHops(tree.roots);
  const turns = tree.roots.reduce(
    (n, h) => n + (h.end?.turns ?? h.entries.filter((e) => e.kind === "turn").length),
    0,
  );
  return [
    ["state", state],
    ["cost", usd(tree.roots.reduce((n, h) => n + paid(h), 0))],
    ["turns", String(turns)],
    [
      "runs",
      `${hops.length} (${hops.filter((h) => h.kind === "subagent").length} subagent, ${hops.filter((h) => h.kind === "skill").length} skill)`,
    ],
    ["tool calls", String(tree.calls)],
    ["denied", String(tree.denials.length)],
    ["compactions", String(tree.compactions)],
    ["retries", String(tree.retries)],
  ];
}

function allHops(hops: readonly Hop[]): Hop[] {
  const out: Hop[] = [];
  const walk = (h: Hop) => {
    out.push(h);
    for (const e of h.entries)
      if (e.kind === "turn")
        for (const c of e.turn.entries) if (c.kind === "call") c.call.children.forEach(walk);
  };
  hops.forEach(walk);
  return out;
}

const KIND = { main: "main agent", subagent: "subagent", skill: "skill" } as const;

function hopNode(hop: Hop, n: number): ViewNode {
  const outcome = hop.end?.outcome;
  const parts: Part[] = [
    { text: hop.kind === "main" && n > 1 ? `run ${n}` : KIND[hop.kind], cls: "kind" },
    { text: hop.agent, cls: "name" },
    { text: hop.model, cls: "muted" },
    outcome
      ? { text: outcome, cls: outcome === "done" ? "ok" : "error" }
      : { text: "no end yet", cls: "running" },
    { text: `${hop.end?.turns ?? hop.entries.filter((e) => e.kind === "turn").length} turns`, cls: "muted" },
    { text: usd(paid(hop)), cls: "cost" },
    ...(hop.end ? [{ text: ms(hop.end.ms), cls: "muted" as const }] : []),
  ];
  const prompt = hop.input ?? hop.prompt;
  const children: ViewNode[] = [
    ...(prompt !== undefined ? [leaf(`h:${hop.runId}:prompt`, "prompt", prompt)] : []),
    ...hop.entries.map((e, i) =>
      e.kind === "turn" ? turnNode(hop, e.turn) : noteNode(`n:${hop.runId}:${i}`, e.note),
    ),
  ];
  return { id: `h:${hop.runId}`, parts, children, open: true };
}

function turnNode(hop: Hop, turn: Turn): ViewNode {
  const calls = turn.entries.filter((e) => e.kind === "call").length;
  const parts: Part[] = [
    { text: `turn ${turn.turn}`, cls: "kind" },
    ...(turn.text ? [{ text: oneLine(turn.text, 90), cls: "muted" as const }] : []),
    ...(calls > 0 ? [{ text: `${calls} call${calls === 1 ? "" : "s"}`, cls: "muted" as const }] : []),
    { text: turn.costUnknown ? "cost unknown" : usd(turn.costUsd), cls: "cost" },
    { text: `${turn.tokens} tokens`, cls: "muted" },
  ];
  const id = `t:${hop.runId}:${turn.turn}`;
  const children: ViewNode[] = [
    ...(turn.text ? [leaf(`${id}:text`, "said", turn.text)] : []),
    ...turn.entries.map((e, i) => (e.kind === "call" ? callNode(e.call) : noteNode(`${id}:n${i}`, e.note))),
  ];
  return { id, parts, children, open: true };
}

const callId = (c: Call) => `c:${c.id}`;

function callNode(c: Call): ViewNode {
  const id = callId(c);
  const decision = c.decision ?? "running";
  const note = c.permission;
  const childCost = c.children.reduce((n, h) => n + paid(h), 0);
  const parts: Part[] = [
    { text: c.name, cls: "name" },
    ...(summary(c) ? [{ text: oneLine(summary(c), 80), cls: "muted" as const }] : []),
    { text: decision, cls: decisionClass(decision) },
    ...(note?.rule
      ? [{ text: note.at ? `${note.rule} · ${note.at}` : note.rule, cls: "rule" as const }]
      : []),
    ...(c.ms !== undefined ? [{ text: ms(c.ms), cls: "muted" as const }] : []),
    ...(c.children.length > 0 ? [{ text: usd(childCost), cls: "cost" as const }] : []),
  ];
  const children: ViewNode[] = [
    leaf(`${id}:input`, "input", json(c.input)),
    ...(note ? [leaf(`${id}:decision`, "decision", decisionText(note))] : []),
    ...(c.content !== undefined
      ? [leaf(`${id}:result`, c.isError ? "result (error)" : "result", c.content || "(no output)")]
      : []),
    ...c.children.map((h, i) => hopNode(h, i + 1)),
  ];
  return { id, parts, children, open: c.children.length > 0 };
}

function noteNode(id: string, note: Note): ViewNode {
  const cls = note.what === "error" || note.what === "abort" || note.what === "refusal" ? "error" : "warn";
  return {
    id,
    parts: [
      { text: note.what, cls },
      { text: oneLine(note.text, 120), cls: "muted" },
    ],
    pre: clip(note.text),
  };
}

const leaf = (id: string, label: string, text: string): ViewNode => ({
  id,
  parts: [{ text: label, cls: "kind" }],
  pre: clip(text),
});

function decisionClass(d: string): Part["cls"] {
  if (d === "allowed" || d === "server") return "ok";
  if (d === "running") return "running";
  if (d === "denied" || d === "blocked-by-hook") return "denied";
  return "error";
}

function decisionText(n: DecisionNote): string {
  return [
    `verdict: ${n.verdict}`,
    ...(n.reason ? [`reason: ${n.reason}`] : []),
    ...(n.rule ? [`rule: ${n.rule}`] : []),
    ...(n.at ? [`written at: ${n.at}`] : []),
    ...(n.narrowedBy ? [`narrowed by: ${n.narrowedBy}`] : []),
    ...(n.asked ? [`asked: ${n.asked.reason} (answer: ${n.asked.answer})`] : []),
  ].join("\n");
}

function denialLine(c: Call): string {
  const rule = c.permission?.rule
    ? ` by ${c.permission.rule}${c.permission.at ? ` at ${c.permission.at}` : ""}`
    : "";
  const narrowed = c.permission?.narrowedBy ? `, narrowed by ${c.permission.narrowedBy}` : "";
  return oneLine(`${c.name} ${summary(c)} — denied${rule}${narrowed}`, 200);
}

/** The part of a call's input a person looks for first. */
function summary(c: Call): string {
  const input = c.input as Record<string, unknown> | undefined;
  if (typeof input !== "object" || input === null) return "";
  for (const key of [
    "command",
    "file_path",
    "path",
    "pattern",
    "url",
    "query",
    "subagent_type",
    "skill",
    "description",
  ]) {
    const v = input[key];
    if (typeof v === "string" && v !== "") return v;
  }
  return "";
}

function json(v: unknown): string {
  if (v === undefined) return "(not in the transcript)";
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

function clip(text: string): string {
  return text.length > MAX_TEXT
    ? `${text.slice(0, MAX_TEXT)}\n… (${text.length - MAX_TEXT} more characters in the transcript)`
    : text;
}

export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export const usd = (n: number) => `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}`;

const ms = (n: number) => (n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`);
