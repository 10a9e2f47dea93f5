import { randomBytes } from "node:crypto";
import { homedir } from "node:os";
import path from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import PQueue from "p-queue";
import { didYouMean } from "../definitions/did-you-mean.js";
import { type DefinitionInput, definitionFromObject } from "../definitions/from-object.js";
import { loadProject } from "../definitions/load.js";
import type {
  CommandDefinition,
  Definition,
  Diagnostic,
  MainAgentDefinition,
  SkillDefinition,
  SubagentDefinition,
  Surface,
} from "../definitions/types.js";
import type { EventSink, RunEvent, RunResult } from "../loop/events.js";
import type { Hooks } from "../loop/hooks.js";
import {
  conversationOf,
  newSessionId,
  openTranscript,
  readSessionEvents,
  sessionsDir,
} from "../loop/transcript.js";
import { ConfigError, createModelClient } from "../model/client.js";
import { type Price, resolveModel } from "../model/models.js";
import { loadRecording, recordInput, recordingFetch, replayFetch } from "../model/record-replay.js";
import { BUILTIN_PERMISSION_SPECS } from "../permissions/builtin-specs.js";
import { definitionList } from "../permissions/definition-list.js";
import { intersect, UNRESTRICTED } from "../permissions/index.js";
import type { PermissionList } from "../permissions/types.js";
import { type BuiltinToolDeps, createBuiltinTools } from "../tools/builtin/index.js";
import { createReadRecord } from "../tools/read-record.js";
import { createToolRegistry, type ToolRegistry } from "../tools/registry.js";
import type { SchemaValidationMode, Tool } from "../tools/types.js";
import { expandBody } from "./expand-body.js";
import { type Core, endBeforeStart, mergeHooks, type RunSpec, startRun } from "./start-run.js";

export interface RunnerOptions {
  /** The folder holding agent.md and the other definitions; also where transcripts go. */
  readonly projectDir?: string;
  /** The working folder tools run in (default: projectDir, else the process's). */
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The main agent as an object, instead of (or over) agent.md: its frontmatter keys and `body`,
   * validated by the same schema as the file (errors throw a ConfigError listing them).
   */
  readonly main?: DefinitionInput;
  /** Subagents, skills and commands as objects, beside (and over same-named) ones from files. */
  readonly agents?: readonly DefinitionInput[];
  readonly skills?: readonly DefinitionInput[];
  readonly commands?: readonly DefinitionInput[];
  readonly model?: {
    /** A model id or alias; overrides agent.md. */
    readonly id?: string;
    readonly apiKey?: string;
    readonly baseURL?: string;
    readonly maxRetries?: number;
    readonly fetch?: typeof globalThis.fetch;
    /** Store every model exchange in this JSONL file. */
    readonly record?: string;
    /** Answer from this recording: no network, no key. */
    readonly replay?: string;
    /** Prices per million tokens by model id prefix, over the built-in table. */
    readonly prices?: Readonly<Record<string, Price>>;
  };
  readonly limits?: {
    readonly maxIterations?: number;
    readonly maxTokens?: number;
    readonly maxDepth?: number;
  };
  readonly tools?: {
    /** More tools, registered beside the built-in ones. */
    readonly extra?: readonly Tool[];
    /** `false` for no built-in tools; or their injected file system and process access. */
    readonly builtin?: false | BuiltinToolDeps;
    readonly schemaValidation?: SchemaValidationMode;
  };
  readonly concurrency?: {
    readonly enabled?: boolean;
    readonly maxConcurrency?: number;
    readonly perBatchMax?: number;
  };
  /** Hooks as functions, run after agent.md's command hooks. */
  readonly hooks?: Hooks;
  readonly transcript?: { readonly enabled?: boolean; readonly dir?: string };
  readonly promptCaching?: boolean;
  /** Delay before retry `attempt` of an in-stream overload (tests make it 0). */
  readonly backoff?: (attempt: number) => number;
}

export interface RunOptions {
  readonly signal?: AbortSignal;
  /** Continue this session: its conversation is sent again, and its transcript extended. */
  readonly resume?: string;
  /** Run this subagent instead of the main agent (its list is the main agent's ∩ its own). */
  readonly agent?: string;
}

/** A running (or finished) run: iterate its events as they happen; `result()` when it ends. */
export interface RunHandle extends AsyncIterable<RunEvent> {
  readonly sessionId: string;
  result(): Promise<RunResult>;
}

export interface Runner {
  readonly definitions: readonly Definition[];
  readonly diagnostics: readonly Diagnostic[];
  readonly registry: ToolRegistry;
  /** A prompt for the main agent, or `/name args` for a command or skill, as typed in the REPL. */
  run(input: string | MessageParam["content"], options?: RunOptions): RunHandle;
  /** `/name args`: a command or skill, exactly as a user typing it. */
  invoke(line: string, options?: RunOptions): RunHandle;
  /** The names a user may type after `/`, for completion and `/help`. */
  slashNames(): string[];
}

export const DEFAULT_MAX_ITERATIONS = 50;
export const DEFAULT_MAX_TOKENS = 8192;
export const DEFAULT_MAX_CONCURRENCY = 4;
export const DEFAULT_MAX_DEPTH = 3;

/**
 * Builds a runner: loads the project once, registers the tools, prepares the model client's
 * transport (live, recording or replaying) and one global pool for every run of the process.
 * Throws `ConfigError` for configuration a user must fix (a broken agent.md, no API key).
 */
export function createRunner(options: RunnerOptions = {}): Runner {
  const env = options.env ?? process.env;
  const projectDir = path.resolve(options.projectDir ?? options.cwd ?? process.cwd());
  const cwd = path.resolve(options.cwd ?? projectDir);
  const home = env.HOME ?? homedir();
  const loaded =
    options.projectDir !== undefined
      ? loadProject(projectDir)
      : { definitions: [], diagnostics: [], files: [] };
  const mainErrors = loaded.diagnostics.filter((d) => d.severity === "error" && d.surface === "main");
  if (mainErrors.length > 0 && !options.main) {
    throw new ConfigError(
      `agent.md cannot be loaded:\n${mainErrors.map((d) => `  ${path.relative(projectDir, d.file)}:${d.line}:${d.column}: ${d.message}`).join("\n")}`,
    );
  }
  const fromCode = definitionsFromCode(options, projectDir);
  const codeMain = fromCode.find((d) => d.surface === "main");
  const definitions = [...loaded.definitions.filter((d) => !(codeMain && d.surface === "main")), ...fromCode];
  const main = definitions.find((d) => d.surface === "main") as MainAgentDefinition | undefined;
  const bySurface = <D extends Definition>(surface: D["surface"]) => {
    const m = new Map<string, D>();
    for (const d of definitions) if (d.surface === surface) m.set(d.name, d as D);
    return m;
  };
  const skills = bySurface<SkillDefinition>("skill");
  const commands = bySurface<CommandDefinition>("command");
  const baseTools = options.tools?.builtin === false ? [] : createBuiltinTools(options.tools?.builtin || {});
  const allTools = [...baseTools, ...(options.tools?.extra ?? [])];
  const baseRegistry = createToolRegistry(allTools);
  let noticeSink: (message: string) => void = () => {};
  const baseFetch = transport(options, (message) => noticeSink(message));
  const clientOpts = clientOptions(options, main, baseFetch);
  createModelClient({ env, ...clientOpts }); // fails fast on a missing key
  const maxConcurrency = Math.max(
    1,
    options.concurrency?.maxConcurrency ?? main?.toolConcurrency?.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
  );
  // Task and Skill are made per run, but lists naming them compile and judge from the start.
  const specs = new Map([...BUILTIN_PERMISSION_SPECS, ...baseRegistry.specs]);
  const lists = new WeakMap<Definition, PermissionList>();
  const listOf = (def: Definition) => {
    let l = lists.get(def);
    if (!l) {
      l = definitionList(def, { specs, home });
      lists.set(def, l);
    }
    return l;
  };
  const core: Core = {
    projectDir,
    cwd,
    env,
    agents: bySurface<SubagentDefinition>("agent"),
    skills,
    commands,
    baseTools: allTools,
    baseRegistry,
    pool: new PQueue({ concurrency: maxConcurrency }),
    client: (emit, runId) =>
      createModelClient({
        env,
        ...clientOptions(
          options,
          main,
          observeRetries(baseFetch, clientOpts.maxRetries ?? 2, (attempt, reason, delayMs) =>
            emit({ runId, depth: 0, type: "retry", attempt, reason, delayMs }),
          ),
        ),
      }),
    listOf,
    specs,
    maxDepth: options.limits?.maxDepth ?? main?.maxDepth ?? DEFAULT_MAX_DEPTH,
    maxTokens: options.limits?.maxTokens ?? main?.maxTokens ?? DEFAULT_MAX_TOKENS,
    maxIterations: options.limits?.maxIterations ?? main?.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    promptCaching: options.promptCaching ?? main?.promptCaching ?? true,
    gateMode: options.tools?.schemaValidation ?? main?.schemaValidation ?? "enforce",
    concurrency: {
      enabled: options.concurrency?.enabled ?? main?.toolConcurrency?.enabled ?? true,
      perBatchMax: Math.min(
        maxConcurrency,
        Math.max(1, options.concurrency?.perBatchMax ?? main?.toolConcurrency?.perBatchMax ?? maxConcurrency),
      ),
    },
    ...(options.model?.prices && { prices: options.model.prices }),
    ...(options.backoff && { backoff: options.backoff }),
  };
  const mainList = main ? listOf(main) : UNRESTRICTED;
  const mainModel = resolveModel(options.model?.id ?? main?.model);
  const mainHooks = mergeHooks(main?.hooks, options.hooks);

  const run: Runner["run"] = (input, runOptions = {}) => {
    const sessionId = runOptions.resume ?? newSessionId();
    const signal = runOptions.signal ?? new AbortController().signal;
    const channel = eventChannel();
    const transcriptDir = options.transcript?.dir ?? sessionsDir(projectDir);
    const transcript =
      options.transcript?.enabled === false
        ? undefined
        : openTranscript(transcriptDir, sessionId, (message) =>
            channel.push({ runId: "", depth: 0, type: "warning", message }),
          );
    const emit: EventSink = (event) => {
      transcript?.write(event);
      channel.push(event);
    };
    noticeSink = (message) => emit({ runId: "", depth: 0, type: "warning", message });
    if (options.model?.record && typeof input === "string") recordInput(options.model.record, input);
    for (const w of baseRegistry.warnings) emit({ runId: "", depth: 0, type: "warning", message: w });
    const done = (async (): Promise<RunResult> => {
      const history = runOptions.resume
        ? conversationOf(readSessionEvents(transcriptDir, runOptions.resume))
        : [];
      const spec = await prepare(input, runOptions, history, { sessionId, signal, emit });
      if ("failure" in spec) {
        const runId = `run-${randomBytes(4).toString("hex")}`;
        return endBeforeStart(
          { runId, depth: 0, emit, sessionId, messages: history },
          "error",
          "invocation_failed",
          spec.failure,
        );
      }
      return startRun(core, spec);
    })();
    const finished = done.finally(() => channel.end());
    return { sessionId, result: () => finished, [Symbol.asyncIterator]: () => channel.iterator() };
  };

  /** What a typed line means: a prompt for the main agent (or `--agent`), or a command or skill. */
  async function prepare(
    input: string | MessageParam["content"],
    runOptions: RunOptions,
    history: MessageParam[],
    io: { sessionId: string; signal: AbortSignal; emit: EventSink },
  ): Promise<RunSpec | { failure: string }> {
    const base = {
      depth: 0,
      maxIterations: core.maxIterations,
      signal: io.signal,
      emit: io.emit,
      sessionId: io.sessionId,
    };
    const plain = (
      list: PermissionList,
      extra: { agent: string; system: string; model: string; hooks: Hooks },
      content = input,
    ) => ({
      ...base,
      ...extra,
      list,
      messages: [...history, { role: "user" as const, content }],
    });
    if (runOptions.agent !== undefined) {
      const sub = core.agents.get(runOptions.agent);
      if (!sub) return { failure: unknownName("subagent", runOptions.agent, [...core.agents.keys()]) };
      const model = sub.model === undefined || sub.model === "inherit" ? mainModel : resolveModel(sub.model);
      return plain(intersect(mainList, listOf(sub)), {
        agent: sub.name,
        system: sub.body,
        model,
        hooks: mergeHooks(mainHooks, sub.hooks),
      });
    }
    const slash =
      typeof input === "string"
        ? /^\/([A-Za-z0-9_][A-Za-z0-9_:.-]*)(?:\s+([\s\S]*))?$/.exec(input.trim())
        : null;
    const mainSpec = {
      agent: main?.name ?? "main",
      system: main?.body ?? "",
      model: mainModel,
      hooks: mainHooks,
    };
    if (!slash) return plain(mainList, mainSpec);
    const name = slash[1] as string;
    const args = (slash[2] ?? "").trim();
    const skill = core.skills.get(name);
    const command = core.commands.get(name);
    const target =
      skill && skill.userInvocable !== false ? skill : command?.userInvocable !== false ? command : undefined;
    if (!target)
      return {
        failure: unknownName(
          "command or skill",
          `/${name}`,
          slashNames().map((n) => `/${n}`),
        ),
      };
    const list = intersect(mainList, listOf(target));
    const toolCtx = {
      cwd,
      signal: io.signal,
      logger: { debug: () => {}, warn: () => {} },
      readRecord: createReadRecord(),
      env,
    };
    const expanded = await expandBody(target.body, {
      label: `/${name}`,
      args,
      list,
      registry: baseRegistry,
      toolCtx,
      ...(target.surface === "skill" && { skillDir: target.dir }),
      hooks: mergeHooks(mainHooks, target.surface === "skill" ? target.hooks : undefined),
      sessionId: io.sessionId,
    });
    if (!expanded.ok) return { failure: expanded.message };
    const model = target.model && target.model !== "inherit" ? resolveModel(target.model) : mainModel;
    if (target.context === "fork") {
      const agent = target.agent ? core.agents.get(target.agent) : undefined;
      if (target.agent && !agent)
        return { failure: `/${name} names the subagent '${target.agent}', which is not defined` };
      return {
        ...plain(
          agent ? intersect(list, listOf(agent)) : list,
          {
            agent: `${target.surface}:${name}`,
            system: agent?.body ?? "",
            model,
            hooks: mergeHooks(mainHooks, agent?.hooks, target.surface === "skill" ? target.hooks : undefined),
          },
          expanded.text,
        ),
        typed: (input as string).trim(),
      };
    }
    const spec = plain(
      list,
      {
        ...mainSpec,
        model,
        hooks: mergeHooks(mainHooks, target.surface === "skill" ? target.hooks : undefined),
      },
      expanded.text,
    );
    return { ...spec, typed: (input as string).trim() };
  }

  function slashNames(): string[] {
    const names = new Set<string>();
    for (const s of core.skills.values()) if (s.userInvocable !== false) names.add(s.name);
    for (const c of core.commands.values()) if (c.userInvocable !== false) names.add(c.name);
    return [...names].sort();
  }

  return {
    definitions,
    diagnostics: loaded.diagnostics,
    registry: baseRegistry,
    run,
    invoke: (line, runOptions) => run(line.startsWith("/") ? line : `/${line}`, runOptions),
    slashNames,
  };
}

/** The definitions given as objects, validated as files are; any error throws, listing them all. */
function definitionsFromCode(options: RunnerOptions, root: string): Definition[] {
  const inputs: [Surface, DefinitionInput][] = [
    ...(options.main ? [["main", options.main] as [Surface, DefinitionInput]] : []),
    ...(options.agents ?? []).map((d) => ["agent", d] as [Surface, DefinitionInput]),
    ...(options.skills ?? []).map((d) => ["skill", d] as [Surface, DefinitionInput]),
    ...(options.commands ?? []).map((d) => ["command", d] as [Surface, DefinitionInput]),
  ];
  const out: Definition[] = [];
  const errors: string[] = [];
  for (const [surface, input] of inputs) {
    const r = definitionFromObject(surface, input, root);
    for (const d of r.diagnostics) {
      if (d.severity === "error")
        errors.push(`  ${path.relative(root, d.file)}:${d.line}:${d.column}: ${d.message} [${d.code}]`);
    }
    if (r.definition) out.push(r.definition);
  }
  if (errors.length > 0)
    throw new ConfigError(`definitions given in code cannot be loaded:\n${errors.join("\n")}`);
  // Later ones win over earlier ones of the same name: code over files.
  return out;
}

function unknownName(kind: string, name: string, known: readonly string[]): string {
  const near = didYouMean(name, known);
  const list = known.length
    ? ` Known: ${known.slice(0, 20).join(", ")}${known.length > 20 ? ", …" : ""}.`
    : "";
  return `unknown ${kind} ${name}${near ? `; did you mean ${near}?` : "."}${list}`;
}

function transport(
  options: RunnerOptions,
  notice: (message: string) => void,
): typeof globalThis.fetch | undefined {
  const m = options.model ?? {};
  if (m.replay) return replayFetch(loadRecording(m.replay), (n) => notice(n.message));
  if (m.record) return recordingFetch(m.record, m.fetch ?? globalThis.fetch);
  return m.fetch;
}

function clientOptions(
  options: RunnerOptions,
  main: MainAgentDefinition | undefined,
  fetch: typeof globalThis.fetch | undefined,
) {
  const m = options.model ?? {};
  const baseURL = m.baseURL ?? main?.baseUrl;
  return {
    ...(m.apiKey && { apiKey: m.apiKey }),
    ...(baseURL && { baseURL }),
    ...(fetch && { fetch }),
    ...(m.replay ? { maxRetries: 0 } : m.maxRetries !== undefined ? { maxRetries: m.maxRetries } : {}),
  };
}

/**
 * Wraps the client's transport to see the SDK's own retries (408/409/429/5xx, honouring
 * retry-after) and report each as an event; the SDK still does the retrying.
 */
function observeRetries(
  inner: typeof globalThis.fetch | undefined,
  maxRetries: number,
  onRetry: (attempt: number, reason: string, delayMs: number) => void,
): typeof globalThis.fetch {
  const base = inner ?? globalThis.fetch;
  return async (input, init) => {
    const res = await base(input, init);
    if (res.status === 408 || res.status === 409 || res.status === 429 || res.status >= 500) {
      const count = Number(new Headers(init?.headers).get("x-stainless-retry-count") ?? 0);
      if (count < maxRetries && res.headers.get("x-should-retry") !== "false") {
        onRetry(count + 1, `HTTP ${res.status}`, retryAfterMs(res.headers));
      }
    }
    return res;
  };
}

function retryAfterMs(h: Headers): number {
  const ms = Number(h.get("retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const s = Number(h.get("retry-after"));
  return Number.isFinite(s) && s > 0 ? s * 1000 : 0;
}

/** Events from one producer to one consumer, buffered until read. */
function eventChannel() {
  const buffer: RunEvent[] = [];
  let waiting: ((r: IteratorResult<RunEvent>) => void) | undefined;
  let ended = false;
  return {
    push(e: RunEvent) {
      if (ended) return;
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        w({ value: e, done: false });
      } else buffer.push(e);
    },
    end() {
      ended = true;
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        w({ value: undefined, done: true });
      }
    },
    iterator(): AsyncIterator<RunEvent> {
      return {
        next: () => {
          const e = buffer.shift();
          if (e) return Promise.resolve({ value: e, done: false });
          if (ended) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve) => {
            waiting = resolve;
          });
        },
      };
    },
  };
}
