/**
 * What the view's server sends its page: data only, every string of it untrusted (a transcript
 * holds what tools returned and models wrote). The page draws it with `textContent` alone.
 */

/** One row of a tree: its text in parts (each styled by its class), its children, a block of text. */
export interface ViewNode {
  /** Stable across updates of a live page: it keeps what was opened, and what has the focus. */
  readonly id: string;
  readonly parts: readonly Part[];
  readonly children?: readonly ViewNode[];
  /** Text shown as it is, in a block (an input's JSON, a result). */
  readonly pre?: string;
  /** Opened at first (a person's own opening or closing wins afterwards). */
  readonly open?: boolean;
}

export interface Part {
  readonly text: string;
  readonly cls?: PartClass;
}

export type PartClass =
  | "kind"
  | "name"
  | "muted"
  | "cost"
  | "ok"
  | "denied"
  | "error"
  | "running"
  | "warn"
  | "rule";

export type SessionState = "running" | "interrupted" | string;

export interface SessionRow {
  readonly id: string;
  /** Where its transcript is: this project's sessions folder, or the queue's Redis. */
  readonly source: "local" | "queue";
  readonly title: string;
  /** ISO time of its last write. */
  readonly modified?: string;
  readonly turns: number;
  readonly costUsd: number;
  readonly state: SessionState;
}

export interface SessionPage {
  readonly id: string;
  readonly source: "local" | "queue";
  readonly title: string;
  readonly state: SessionState;
  readonly facts: readonly (readonly [string, string])[];
  /** Each denied call, said in one line, with the tree row it is. */
  readonly denials: readonly { readonly text: string; readonly node: string }[];
  readonly tree: readonly ViewNode[];
  /** Lines of the transcript that were not events (cut off, or damaged). */
  readonly skipped: number;
}

export interface BatchRow {
  readonly name: string;
  readonly queuedAt?: string;
  readonly total: number;
  readonly done: number;
  readonly failed: number;
  readonly running: number;
  readonly waiting: number;
  readonly costUsd: number;
  readonly tokens: number;
}

export interface ItemRow {
  readonly id: string;
  readonly sessionId: string;
  readonly state: string;
  readonly turns: number;
  readonly costUsd: number;
  readonly worker?: string;
  readonly message?: string;
  /** Where its session can be read, when it can. */
  readonly session?: "local" | "queue";
}

export interface BatchPage {
  readonly batch: BatchRow;
  readonly items: readonly ItemRow[];
  /** Items not listed (the list shows running, failed and waiting ones first). */
  readonly more: number;
}
