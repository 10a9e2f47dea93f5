import { type Fired, fireHooks, type HookContext, type HookElicitAnswer, type Hooks } from "../loop/hooks.js";
import { formProblem } from "../mcp/elicit-schema.js";
import {
  DECLINED,
  type Elicit,
  type ElicitationAnswer,
  type ElicitationRequest,
} from "../mcp/elicitation.js";

/** Who answers the MCP servers' questions of a runner, and the session its hooks are told of. */
export interface ElicitDesk {
  /**
   * The session's Elicitation hooks first (one may answer for the user, or refuse: a decline),
   * else `ask` (the front door's: a chat form, the SDK program; none: a decline), then its
   * ElicitationResult hooks (which may put another answer). Content the form refuses is never sent.
   */
  readonly elicit: Elicit;
  /** The hook context of the session whose runs ask from now on (each run's start sets it). */
  at(context: (signal: AbortSignal) => HookContext): void;
}

export function elicitDesk(
  hooks: Hooks,
  ask: Elicit | undefined,
  /** The session's working folder, permission mode and environment: the context before any run. */
  base: {
    readonly cwd: string;
    readonly mode: string;
    readonly env?: Readonly<Record<string, string | undefined>>;
  },
): ElicitDesk {
  let contextOf = (signal: AbortSignal): HookContext => ({
    session: { sessionId: "", cwd: base.cwd, runId: "", permissionMode: base.mode },
    warn: () => {},
    signal,
    ...(base.env && { env: base.env }),
  });
  return {
    at: (c) => {
      contextOf = c;
    },
    elicit: (request, signal) => answer(request, signal, contextOf(signal), { hooks, ask }),
  };
}

async function answer(
  request: ElicitationRequest,
  signal: AbortSignal,
  ctx: HookContext,
  input: { readonly hooks: Hooks; readonly ask: Elicit | undefined },
): Promise<ElicitationAnswer> {
  const server = `MCP server '${request.server}'`;
  const fields = { mcp_server_name: request.server, mode: "form" as const };
  const before = await fireHooks(
    input.hooks,
    "Elicitation",
    { ...fields, message: request.message, requested_schema: request.requestedSchema },
    ctx,
  );
  const refused = refusal(before);
  if (refused !== undefined) {
    ctx.warn(`the question of ${server} was declined: ${refused}`);
    return DECLINED;
  }
  const given = hookAnswer(before)
    ? fitted(before.elicitation, request, `an Elicitation hook's answer to ${server}`, ctx)
    : fitted(await asked(request, signal, input.ask), request, `the answer to ${server}`, ctx);
  const after = await fireHooks(
    input.hooks,
    "ElicitationResult",
    { ...fields, action: given.action, ...(given.content && { content: given.content }) },
    ctx,
  );
  const overruled = refusal(after);
  if (overruled !== undefined) {
    ctx.warn(`the answer to ${server} was declined: ${overruled}`);
    return DECLINED;
  }
  return hookAnswer(after)
    ? fitted(after.elicitation, request, `an ElicitationResult hook's answer to ${server}`, ctx)
    : given;
}

function asked(request: ElicitationRequest, signal: AbortSignal, ask: Elicit | undefined) {
  return ask
    ? ask(request, signal).catch((): ElicitationAnswer => ({ action: "cancel" }))
    : Promise.resolve(DECLINED);
}

/** Why the hooks refused the question (a block, `continue: false`, a hook that failed). */
function refusal(fired: Fired): string | undefined {
  if (fired.kind === "block" || fired.kind === "halt") return `blocked by a hook: ${fired.reason}`;
  if (fired.kind === "failed") return `a hook failed (${fired.reason})`;
  return undefined;
}

const hookAnswer = (f: Fired): f is Fired & { elicitation: HookElicitAnswer } =>
  "elicitation" in f && f.elicitation !== undefined;

/** The answer as sent: an accept whose content the form refuses is a decline, said on `warn`. */
function fitted(
  a: HookElicitAnswer,
  request: ElicitationRequest,
  whose: string,
  ctx: HookContext,
): ElicitationAnswer {
  if (a.action === "decline") return DECLINED;
  if (a.action !== "accept") return { action: "cancel" }; // cancel, or an answer of no known kind
  const content = a.content ?? {};
  const problem = formProblem(request.requestedSchema, content);
  if (problem === undefined) return { action: "accept", content: content as ElicitationAnswer["content"] };
  ctx.warn(`${whose} does not fit its form (${problem}), so it was declined`);
  return DECLINED;
}
