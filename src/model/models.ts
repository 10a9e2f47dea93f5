import { DEFAULT_MODEL, MODEL_ALIASES } from "../shared/defaults.js";
import { didYouMean } from "../shared/did-you-mean.js";
import { canonicalModelId } from "./providers/provider-models.js";

/**
 * Model ids and prices. Aliases resolve through the one table of shared/defaults.ts. Prices are US
 * dollars per million tokens by family tier; a runner can be given its own table (`prices`) to
 * override or extend this one, and should be wherever exact figures matter.
 */
export function resolveModel(model: string | undefined): string {
  if (model === undefined || model === "" || model === "inherit") return DEFAULT_MODEL;
  return Object.hasOwn(MODEL_ALIASES, model) ? (MODEL_ALIASES[model] as string) : model;
}

/**
 * Why a model name given on the command line cannot be sent, or undefined when it can: an alias
 * (`sonnet`), `inherit`, or what reads as a full id — `claude-…`, or a provider's spelling with a
 * `.`, `/`, `:` or `@` in it (`us.anthropic.claude-…`, `anthropic/claude-…`). A bare word that is
 * none of these (`sonet`) is a typo, and is refused with the nearest alias rather than sent.
 */
export function modelNameProblem(model: string): string | undefined {
  if (Object.hasOwn(MODEL_ALIASES, model) || model === "inherit") return undefined;
  if (/^claude-[a-z0-9][a-z0-9.-]*$/i.test(model) || /^[\w.-]*[./:@][\w./:@-]*$/.test(model))
    return undefined;
  const aliases = Object.keys(MODEL_ALIASES);
  const near = didYouMean(model, [...aliases, ...Object.values(MODEL_ALIASES)]);
  return `'${model}' is not a model alias or id${near ? `; did you mean '${near}'?` : ""} (aliases: ${aliases.join(", ")}; or a full id such as ${DEFAULT_MODEL})`;
}

export interface Price {
  readonly input: number;
  readonly output: number;
  /** Writing to the prompt cache (5-minute): 1.25 × input. */
  readonly cacheWrite: number;
  /** Reading from the prompt cache: 0.1 × input. */
  readonly cacheRead: number;
  /** US dollars per 1,000 web searches; absent: WEB_SEARCH_PRICE, the same for every model. */
  readonly webSearch?: number;
}

/** US dollars per 1,000 searches of the API's web search tool. */
export const WEB_SEARCH_PRICE = 10;

const price = (input: number, output: number): Price => ({
  input,
  output,
  cacheWrite: input * 1.25,
  cacheRead: input * 0.1,
});

/** By model id prefix; the longest matching prefix wins. */
export const PRICES: Readonly<Record<string, Price>> = {
  "claude-opus": price(5, 25),
  "claude-opus-4-0": price(15, 75),
  "claude-opus-4-1": price(15, 75),
  "claude-opus-4-2025": price(15, 75),
  "claude-sonnet": price(3, 15),
  "claude-haiku": price(1, 5),
  "claude-3-5-haiku": price(0.8, 4),
  "claude-3-haiku": price(0.25, 1.25),
  "claude-3-7-sonnet": price(3, 15),
};

export interface Usage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  /** Searches the API ran for WebSearch; present once there was one. */
  readonly server_tool_use?: { readonly web_search_requests: number };
}

export const ZERO_USAGE: Usage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

/** Counts as the API reports them: any of them may be missing or null. */
export type ReportedUsage = {
  readonly [K in Exclude<keyof Usage, "server_tool_use">]?: number | null;
} & { readonly server_tool_use?: { readonly web_search_requests?: number | null } | null };

export function addUsage(a: Usage, b: ReportedUsage | null | undefined): Usage {
  const searches =
    (a.server_tool_use?.web_search_requests ?? 0) + (b?.server_tool_use?.web_search_requests ?? 0);
  return {
    input_tokens: a.input_tokens + (b?.input_tokens ?? 0),
    output_tokens: a.output_tokens + (b?.output_tokens ?? 0),
    cache_creation_input_tokens: a.cache_creation_input_tokens + (b?.cache_creation_input_tokens ?? 0),
    cache_read_input_tokens: a.cache_read_input_tokens + (b?.cache_read_input_tokens ?? 0),
    ...(searches > 0 && { server_tool_use: { web_search_requests: searches } }),
  };
}

/**
 * The price of a model: the longest prefix in `table`, then in PRICES (a provider's spelling, such as
 * `us.anthropic.claude-sonnet-…-v1:0`, priced as the model it names); undefined when unknown.
 */
export function priceOf(given: string, table: Readonly<Record<string, Price>> = {}): Price | undefined {
  for (const [t, model] of [
    [table, given],
    [PRICES, canonicalModelId(given)],
  ] as const) {
    const key = Object.keys(t)
      .filter((k) => model.startsWith(k))
      .sort((x, y) => y.length - x.length)[0];
    if (key !== undefined) return t[key];
  }
  return undefined;
}

/** Dollars for `usage` on `model`, web searches included; 0 when the model has no known price. */
export function costOf(model: string, usage: Usage, table?: Readonly<Record<string, Price>>): number {
  const p = priceOf(model, table);
  if (!p) return 0;
  const searches = usage.server_tool_use?.web_search_requests ?? 0;
  return (
    (usage.input_tokens * p.input +
      usage.output_tokens * p.output +
      usage.cache_creation_input_tokens * p.cacheWrite +
      usage.cache_read_input_tokens * p.cacheRead) /
      1_000_000 +
    (searches * (p.webSearch ?? WEB_SEARCH_PRICE)) / 1000
  );
}
