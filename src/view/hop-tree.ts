import type { CallDecision, RunEvent, RunOutcome } from "../loop/events.js";
import type { DecisionNote } from "../permissions/decision-note.js";

/**
 * A session as the tree of its hops, rebuilt from its events alone: each run (the main agent's,
 * a subagent's, a forked skill's) with its turns, each turn with the calls it made, and each Task
 * or Skill call with the run it started. Pure: the view's pages are drawn from this.
 */
export interface Hop {
  readonly runId: string;
  readonly agent: string;
  readonly model: string;
  readonly depth: number;
  /** What started it: the user (`main`), a Task call (`subagent`), a Skill call (`skill`). */
  kind: "main" | "subagent" | "skill";
  readonly input?: string;
  /** The first thing said to it. */
  prompt?: string;
  /** Set once the run's end is read; undefined while it runs (or if it was cut off). */
  end?: { outcome: RunOutcome; turns: number; costUsd: number; ms: number; tokens: number };
  /** What its turns were paid, as they were (a run cut off has no end). */
  costUsd: number;
  tokens: number;
  readonly entries: HopEntry[];
}

export type HopEntry =
  | { readonly kind: "turn"; readonly turn: Turn }
  | { readonly kind: "note"; readonly note: Note };

export interface Turn {
  readonly turn: number;
  text: string;
  costUsd: number;
  tokens: number;
  costUnknown: boolean;
  readonly entries: (
    | { readonly kind: "call"; readonly call: Call }
    | { readonly kind: "note"; readonly note: Note }
  )[];
}

export interface Call {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  /** Undefined while the call runs (or if the session was cut off before it ended). */
  decision?: CallDecision | "server";
  isError?: boolean;
  content?: string;
  ms?: number;
  permission?: DecisionNote;
  /** The runs this call started (a Task call's subagent, a forked skill). */
  readonly children: Hop[];
}

export interface Note {
  readonly what: "compaction" | "retry" | "warning" | "error" | "limit" | "refusal" | "abort";
  readonly text: string;
}

export interface HopTree {
  /** The session's top-level runs, in order (one per prompt; a resumed session has several). */
  readonly roots: Hop[];
  readonly calls: number;
  readonly denials: readonly Call[];
  readonly compactions: number;
  readonly retries: number;
}

/** Builds the tree of a session's events (in the order they were written). */
export function hopTree(events: readonly RunEvent[]): HopTree {
  const b = new Builder();
  for (const e of events) b.add(e);
  return b.done();
}

class Builder {
  private readonly roots: Hop[] = [];
  private readonly hops = new Map<string, Hop>();
  private readonly turns = new Map<string, Turn>();
  private readonly calls = new Map<string, Call>();
  private readonly denials: Call[] = [];
  private compactions = 0;
  private retries = 0;

  add(e: RunEvent): void {
    if (e.type === "run_start") {
      this.start(e);
      return;
    }
    const hop = this.hops.get(e.runId) ?? this.orphan(e);
    if (e.type === "user_message")
      hop.prompt ??= typeof e.content === "string" ? e.content : blocksText(e.content);
    else if (e.type === "turn_start") this.turn(hop, e.turn);
    else if (e.type === "message_end") this.turn(hop, e.turn).text = blocksText(e.content);
    else if (e.type === "tool_start" || e.type === "server_tool") this.callStart(hop, e);
    else if (e.type === "tool_end") this.callEnd(hop, e);
    else if (e.type === "usage") this.usage(hop, e);
    else if (e.type === "run_end")
      hop.end = {
        outcome: e.outcome,
        turns: e.turns,
        costUsd: e.costUsd,
        ms: e.ms,
        tokens: e.usage.input_tokens + e.usage.output_tokens,
      };
    else this.note(hop, e);
  }

  done(): HopTree {
    return {
      roots: this.roots,
      calls: this.calls.size,
      denials: this.denials,
      compactions: this.compactions,
      retries: this.retries,
    };
  }

  private start(e: Extract<RunEvent, { type: "run_start" }>): void {
    const parent = e.parentToolUseId === undefined ? undefined : this.calls.get(e.parentToolUseId);
    const hop: Hop = {
      runId: e.runId,
      agent: e.agent,
      model: e.model,
      depth: e.depth,
      kind: parent === undefined ? "main" : parent.name === "Skill" ? "skill" : "subagent",
      ...(e.input !== undefined && { input: e.input }),
      costUsd: 0,
      tokens: 0,
      entries: [],
    };
    this.hops.set(e.runId, hop);
    // A run whose starting call is not in the transcript (a damaged line) stands on its own.
    (parent ? parent.children : this.roots).push(hop);
  }

  /** Events of a run whose start is not in the transcript (a damaged line): a hop of their own. */
  private orphan(e: RunEvent): Hop {
    this.start({
      type: "run_start",
      runId: e.runId,
      depth: e.depth,
      sessionId: "",
      agent: "?",
      model: "?",
      tools: [],
    });
    return this.hops.get(e.runId) as Hop;
  }

  private turn(hop: Hop, n: number): Turn {
    const key = `${hop.runId}\0${n}`;
    let turn = this.turns.get(key);
    if (!turn) {
      turn = { turn: n, text: "", costUsd: 0, tokens: 0, costUnknown: false, entries: [] };
      this.turns.set(key, turn);
      hop.entries.push({ kind: "turn", turn });
    }
    return turn;
  }

  /** The turn a call or note belongs to: the run's latest. */
  private current(hop: Hop): Turn | undefined {
    for (let i = hop.entries.length - 1; i >= 0; i--) {
      const entry = hop.entries[i];
      if (entry?.kind === "turn") return entry.turn;
    }
    return undefined;
  }

  private callStart(hop: Hop, e: Extract<RunEvent, { type: "tool_start" | "server_tool" }>): void {
    const call: Call = { id: e.id, name: e.name, input: e.input, children: [] };
    if (e.type === "server_tool")
      Object.assign(call, { decision: "server", isError: e.isError, content: e.content });
    this.calls.set(e.id, call);
    const turn = this.current(hop) ?? this.turn(hop, 0);
    turn.entries.push({ kind: "call", call });
  }

  private callEnd(hop: Hop, e: Extract<RunEvent, { type: "tool_end" }>): void {
    let call = this.calls.get(e.id);
    if (!call) {
      this.callStart(hop, { ...e, type: "tool_start", input: undefined });
      call = this.calls.get(e.id) as Call;
    }
    call.decision = e.decision;
    call.isError = e.isError;
    call.content = e.content;
    call.ms = e.ms;
    if (e.permission) call.permission = e.permission;
    if (e.decision === "denied") this.denials.push(call);
  }

  private usage(hop: Hop, e: Extract<RunEvent, { type: "usage" }>): void {
    const turn = this.turn(hop, e.turn);
    const tokens = e.usage.input_tokens + e.usage.output_tokens;
    turn.costUsd += e.costUsd;
    turn.tokens += tokens;
    if (e.costUnknown) turn.costUnknown = true;
    hop.costUsd += e.costUsd;
    hop.tokens += tokens;
  }

  private note(hop: Hop, e: RunEvent): void {
    const note = noteOf(e);
    if (!note) return;
    if (note.what === "compaction") this.compactions++;
    if (note.what === "retry") this.retries++;
    const turn = note.what === "compaction" ? undefined : this.current(hop);
    if (turn) turn.entries.push({ kind: "note", note });
    else hop.entries.push({ kind: "note", note });
  }
}

function noteOf(e: RunEvent): Note | undefined {
  switch (e.type) {
    case "compaction":
      return {
        what: "compaction",
        text: `compacted ${e.tokensBefore} tokens (${e.kept} message(s) kept): ${e.summary}`,
      };
    case "retry":
      return { what: "retry", text: `attempt ${e.attempt} in ${Math.round(e.delayMs)} ms: ${e.reason}` };
    case "warning":
    case "refusal":
    case "abort":
      return { what: e.type, text: e.message };
    case "error":
      return { what: "error", text: `${e.code}: ${e.message}` };
    case "limit":
      return { what: "limit", text: `${e.kind}: ${e.message}` };
    default:
      return undefined;
  }
}

function blocksText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: { type?: unknown; text?: unknown }) =>
      b.type === "text" && typeof b.text === "string" ? b.text : "",
    )
    .filter(Boolean)
    .join("\n");
}
