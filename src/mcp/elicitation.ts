/**
 * An MCP server's question to the user (`elicitation/create`, form mode): what it asks, and the
 * answer it gets. Who asks is the front door's (chat: a form; stream-json: the SDK program; run,
 * -p and batch: nobody, a decline).
 */
export interface ElicitationRequest {
  /** The server's name, as tools are named after it. */
  readonly server: string;
  readonly message: string;
  /** A flat JSON Schema object of strings, numbers, booleans and enums (the MCP spec's subset). */
  readonly requestedSchema: Readonly<Record<string, unknown>>;
}

export interface ElicitationAnswer {
  readonly action: "accept" | "decline" | "cancel";
  /** The values filled in (accept only). */
  readonly content?: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}

/** Asks the user; resolves with their answer. `signal` aborts when the server withdraws the question. */
export type Elicit = (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

/** The answer when nobody can be asked: a clean decline, and the server goes on. */
export const DECLINED: ElicitationAnswer = { action: "decline" };
