import type { MainAgentDefinition } from "../definitions/types.js";
import { createAnthropicModel } from "../model/anthropic.js";
import { isModel, type Model } from "../model/model.js";
import type { RunnerOptions } from "./runner-options.js";
import type { Settings } from "./settings.js";

/**
 * The runner's model: the `Model` given, as it is; else the Anthropic API client, with the options'
 * model settings over agent.md's and the settings' env. Throws `ConfigError` when that client needs
 * a key and has none.
 */
export function modelOf(
  options: RunnerOptions,
  main: MainAgentDefinition | undefined,
  settings: Settings,
  env: Readonly<Record<string, string | undefined>>,
): Model {
  const m = options.model ?? {};
  if (isModel(m)) return m;
  const baseURL = m.baseURL ?? main?.baseUrl;
  return createAnthropicModel({
    env,
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
