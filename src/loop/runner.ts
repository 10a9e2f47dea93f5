import { randomBytes } from "node:crypto";
import { homedir } from "node:os";
import path from "node:path";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import PQueue from "p-queue";
import { loadProject } from "../definitions/load.js";
import type { Definition, Diagnostic, MainAgentDefinition } from "../definitions/types.js";
import { ConfigError, createModelClient } from "../model/client.js";
import { type Price, resolveModel } from "../model/models.js";
import { loadRecording, recordingFetch, replayFetch } from "../model/record-replay.js";
import { definitionList } from "../permissions/definition-list.js";
import { allowsNothing, offered, ruleTexts } from "../permissions/index.js";
import type { PermissionList } from "../permissions/types.js";
import { type BuiltinToolDeps, createBuiltinTools } from "../tools/builtin/index.js";
import { createReadRecord } from "../tools/read-record.js";
import { createToolRegistry, type ToolRegistry } from "../tools/registry.js";
import type { Logger, SchemaValidationMode, Tool } from "../tools/types.js";
import type { EventSink, RunEvent, RunResult } from "./events.js";
import type { Hook, Hooks } from "./hooks.js";
import { runLoop } from "./run-loop.js";
import {
  conversationOf,
  newSessionId,
  openTranscript,
  readSessionEvents,
  sessionsDir,
} from "./transcript.js";

export interface RunnerOptions {
  /** The folder holding agent.md and the other definitions; also where transcripts go. */
  readonly projectDir?: string;
  /** The working folder tools run in (default: projectDir, else the process's). */
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The main agent as an object, instead of (or over) agent.md. */
  readonly main?: MainAgentDefinition;
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
  readonly limits?: { readonly maxIterations?: number; readonly maxTokens?: number };
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
  run(input: string | MessageParam["content"], options?: RunOptions): RunHandle;
}

export const DEFAULT_MAX_ITERATIONS = 50;
export const DEFAULT_MAX_TOKENS = 8192;
export const DEFAULT_MAX_CONCURRENCY = 4;

/**
 * Builds a runner: loads the project once, registers the tools, prepares the model client's
 * transport (live, recording or replaying) and one global pool for every run of the process.
 * Throws `ConfigError` for configuration a user must fix (a broken agent.md, no API key).
 */
export function createRunner(options: RunnerOptions = {}): Runner {
  const env = options.env ?? process.env;
  const projectDir = path.resolve(options.projectDir ?? options.cwd ?? process.cwd());
  const cwd = path.resolve(options.cwd ?? projectDir);
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
  const main =
    options.main ?? (loaded.definitions.find((d) => d.surface === "main") as MainAgentDefinition | undefined);
  const builtin = options.tools?.builtin === false ? [] : createBuiltinTools(options.tools?.builtin || {});
  const registry = createToolRegistry([...builtin, ...(options.tools?.extra ?? [])]);
  // Replay notices go to the run that is asking; a run sets this when it starts.
  let noticeSink: (message: string) => void = () => {};
  const baseFetch = transport(options, (message) => noticeSink(message));
  // Fail fast on a missing key, before any run starts.
  createModelClient({ env, ...clientOptions(options, main, baseFetch) });
  const maxConcurrency = Math.max(
    1,
    options.concurrency?.maxConcurrency ?? main?.toolConcurrency?.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
  );
  const pool = new PQueue({ concurrency: maxConcurrency });
  const ownList = main
    ? definitionList(main, { specs: registry.specs, home: env.HOME ?? homedir() })
    : { rules: null, deny: [] };

  return {
    definitions: loaded.definitions,
    diagnostics: loaded.diagnostics,
    registry,
    run(input, runOptions = {}) {
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
      const done = (async (): Promise<RunResult> => {
        const runId = `run-${randomBytes(4).toString("hex")}`;
        const base = { runId, depth: 0 };
        const logger: Logger = {
          debug: () => {},
          warn: (message) => emit({ ...base, type: "warning", message }),
        };
        for (const w of registry.warnings) logger.warn(w);
        noticeSink = (message) => logger.warn(message);
        const history = runOptions.resume
          ? conversationOf(readSessionEvents(transcriptDir, runOptions.resume))
          : [];
        const messages: MessageParam[] = [...history, { role: "user", content: input }];
        const model = resolveModel(options.model?.id ?? main?.model);
        const client = createModelClient({
          env,
          ...clientOptions(
            options,
            main,
            observeRetries(baseFetch, options.model?.maxRetries ?? 2, (attempt, reason, delayMs) =>
              emit({ ...base, type: "retry", attempt, reason, delayMs }),
            ),
          ),
        });
        const list: PermissionList = ownList;
        const shown = registry.all.filter((r) => offered(list, [r.tool.name]).length > 0);
        emit({
          ...base,
          type: "run_start",
          sessionId,
          agent: main?.name ?? "main",
          model,
          tools: shown.map((r) => r.tool.name),
        });
        emit({ ...base, type: "user_message", content: input });
        const refusal = refusalOf(list, shown.length);
        if (refusal) {
          emit({ ...base, type: "error", code: "refused_by_permissions", message: refusal });
          emit({
            ...base,
            type: "run_end",
            outcome: "refused",
            text: "",
            turns: 0,
            usage: ZERO,
            costUsd: 0,
            ms: 0,
          });
          return {
            sessionId,
            runId,
            outcome: "refused",
            text: "",
            turns: 0,
            usage: ZERO,
            costUsd: 0,
            messages,
            message: refusal,
          };
        }
        const enabled = options.concurrency?.enabled ?? main?.toolConcurrency?.enabled ?? true;
        const perBatchMax = Math.min(
          maxConcurrency,
          Math.max(
            1,
            options.concurrency?.perBatchMax ?? main?.toolConcurrency?.perBatchMax ?? maxConcurrency,
          ),
        );
        return runLoop(
          {
            client,
            model,
            system: main?.body.trim() ?? "",
            maxTokens: options.limits?.maxTokens ?? main?.maxTokens ?? DEFAULT_MAX_TOKENS,
            maxIterations: options.limits?.maxIterations ?? main?.maxIterations ?? DEFAULT_MAX_ITERATIONS,
            promptCaching: options.promptCaching ?? main?.promptCaching ?? true,
            offered: shown,
            call: {
              registry,
              list,
              cwd,
              signal,
              logger,
              readRecord: createReadRecord(),
              gateMode: options.tools?.schemaValidation ?? main?.schemaValidation ?? "enforce",
              hooks: mergeHooks(main?.hooks, options.hooks),
              env,
              runId,
              sessionId,
              depth: 0,
              emit,
            },
            pool,
            concurrency: { enabled, perBatchMax },
            sessionId,
            ...(options.model?.prices && { prices: options.model.prices }),
            ...(options.backoff && { backoff: options.backoff }),
          },
          messages,
        );
      })();
      const finished = done.then(
        (r) => {
          channel.end();
          return r;
        },
        (e: unknown) => {
          channel.end();
          throw e;
        },
      );
      return {
        sessionId,
        result: () => finished,
        [Symbol.asyncIterator]: () => channel.iterator(),
      };
    },
  };
}

const ZERO = {
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

/** Why a run cannot start with this list, if it cannot. */
function refusalOf(list: PermissionList, shownCount: number): string | undefined {
  if (allowsNothing(list)) return "no tool survives the allow-lists of this run, so it is refused";
  if (list.rules !== null && shownCount === 0) {
    return `no entry of the allow-list names a tool that exists in this run (${ruleTexts(list).join(", ")}), so it is refused`;
  }
  return undefined;
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

function mergeHooks(fromFile: MainAgentDefinition["hooks"] | undefined, fromCode: Hooks | undefined): Hooks {
  const list = (event: "PreToolUse" | "PostToolUse"): Hook[] => [
    ...(fromFile?.[event] ?? []),
    ...(fromCode?.[event] ?? []),
  ];
  return { PreToolUse: list("PreToolUse"), PostToolUse: list("PostToolUse") };
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
