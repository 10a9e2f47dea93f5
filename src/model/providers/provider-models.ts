import { MODEL_ALIASES } from "../../shared/defaults.js";
import type { ProviderChoice } from "./provider-choice.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The variables that choose the id an alias stands for, on every provider (Claude Code's names). */
const ALIAS_VARIABLES: Readonly<Record<string, readonly string[]>> = {
  sonnet: ["ANTHROPIC_DEFAULT_SONNET_MODEL"],
  opus: ["ANTHROPIC_DEFAULT_OPUS_MODEL"],
  haiku: ["ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_SMALL_FAST_MODEL"],
};

/** An id already in a provider's own spelling: a Bedrock id or ARN, a Vertex `@date`, a path. */
const PROVIDER_SPELLING = /^(?:arn:|[a-z]+\.anthropic\.|anthropic\.)|[@:/]/;

/** Bedrock's cross-region inference profile prefix for a region (`us-east-1` → `us`). */
function geography(region: string): string {
  if (region.startsWith("eu-")) return "eu";
  if (region.startsWith("ap-")) return "apac";
  return "us";
}

/**
 * The id a provider is sent for agentmd's model id `model` (which the rest of the run keeps: prices,
 * features and transcripts speak agentmd's ids). An alias's id is replaced by its variable when one
 * is set (`ANTHROPIC_DEFAULT_SONNET_MODEL`); an id in a provider's own spelling goes as it is; else
 * Bedrock gets its inference profile id (`us.anthropic.claude-…-v1:0`) and Vertex and Foundry the
 * id itself. Pure.
 */
export function providerModelId(choice: ProviderChoice, model: string, env: Env): string {
  for (const [alias, names] of Object.entries(ALIAS_VARIABLES)) {
    if (MODEL_ALIASES[alias] !== model) continue;
    for (const name of names) {
      const set = env[name]?.trim();
      if (set) return set;
    }
  }
  if (choice.kind !== "bedrock" || PROVIDER_SPELLING.test(model)) return model;
  return `${geography(choice.region)}.anthropic.${model}-v1:0`;
}

/**
 * agentmd's id for a provider's spelling of it, for prices and model features:
 * `us.anthropic.claude-sonnet-4-5-20250929-v1:0` and `claude-sonnet-4-5@20250929` are
 * `claude-sonnet-4-5-20250929` / `claude-sonnet-4-5`; anything else is returned as it is. Pure.
 */
export function canonicalModelId(model: string): string {
  const at = model.indexOf("claude-");
  if (at <= 0 && !model.includes("@") && !/-v\d+(?::\d+)?$/.test(model)) return model;
  return model
    .slice(Math.max(at, 0))
    .replace(/-v\d+(?::\d+)?$/, "")
    .replace(/@(\d{8})$/, "-$1")
    .replace(/@.*$/, "");
}
