import type { MainAgentDefinition } from "../definitions/types.js";
import { createAnthropicModel } from "../model/anthropic.js";
import { isModel, type Model } from "../model/model.js";
import type { CredentialHelpers } from "../model/providers/credential-helpers.js";
import type { RunnerOptions } from "./runner-options.js";
import type { Settings } from "./settings.js";

/**
 * The runner's model: the `Model` given, as it is; else the Anthropic API client, with the options'
 * model settings over agent.md's and the settings' env; the provider (Anthropic's API, Bedrock,
 * Vertex AI, Foundry) chosen by that env, with the settings' credential commands. Throws `ConfigError` when that client needs
 * a key and has none.
 */
export function modelOf(
  options: RunnerOptions,
  main: MainAgentDefinition | undefined,
  settings: Settings,
  env: Readonly<Record<string, string | undefined>>,
  credentials: { readonly helpers: CredentialHelpers; readonly cwd: string },
): Model {
  const m = options.model ?? {};
  if (isModel(m)) return m;
  const baseURL = m.baseURL ?? main?.baseUrl;
  return createAnthropicModel({
    env,
    helpers: credentials.helpers,
    cwd: credentials.cwd,
    ...(m.apiKey && { apiKey: m.apiKey }),
    ...(baseURL && { baseURL }),
    ...(m.maxRetries !== undefined && { maxRetries: m.maxRetries }),
    ...(settings.idleTimeoutMs !== undefined && { idleTimeoutMs: settings.idleTimeoutMs }),
    ...(m.fetch && { fetch: m.fetch }),
    ...(m.record && { record: m.record }),
    ...(m.replay && { replay: m.replay }),
    ...(options.backoff && { backoff: options.backoff }),
  });
}
