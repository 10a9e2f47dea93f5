import Anthropic from "@anthropic-ai/sdk";

/** Broken configuration a user must fix; the message says how. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export interface ClientOptions {
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly fetch?: typeof globalThis.fetch;
  /** Retries of 408/409/429/5xx by the SDK (honouring retry-after); default 2. */
  readonly maxRetries?: number;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const MISSING_KEY_MESSAGE =
  "no API key: set ANTHROPIC_API_KEY, or run the recorded demo offline with 'agentmd run --replay demo/session.jsonl'";

/**
 * The SDK client for a run: key and base URL from the options (agent.md), then ANTHROPIC_API_KEY and
 * ANTHROPIC_BASE_URL. With a replaying `fetch`, no key is needed.
 */
export function createModelClient(options: ClientOptions): Anthropic {
  const apiKey = options.apiKey ?? options.env.ANTHROPIC_API_KEY;
  const baseURL = options.baseURL ?? options.env.ANTHROPIC_BASE_URL;
  if (!apiKey && !options.fetch) throw new ConfigError(MISSING_KEY_MESSAGE);
  return new Anthropic({
    apiKey: apiKey ?? "replay",
    ...(baseURL && { baseURL }),
    ...(options.fetch && { fetch: options.fetch }),
    maxRetries: options.maxRetries ?? 2,
    // Errors reach the run as events; the SDK's own console logging would only repeat them.
    logLevel: "off",
  });
}
