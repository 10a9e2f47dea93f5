import type { McpServerConfig } from "../definitions/types.js";
import type { McpSdk } from "./mcp-sdk.js";
import { KeptSignIn, SignInNeededError, signInNeededMessage } from "./oauth-provider.js";

/** How long before its expiry an access token is refreshed. */
const REFRESH_MARGIN_MS = 60_000;

/**
 * A run's use of the sign-in kept for one HTTP server: the SDK's transport gets `provider` (its
 * `Authorization` header, and a refresh when the server answers 401), and `fresh` refreshes a
 * token about to expire before a start or a call sends it.
 */
export class RunSignIn {
  readonly provider: KeptSignIn;
  #refreshing: Promise<void> | undefined;

  constructor(
    home: string,
    url: string,
    server: string,
    private readonly sdk: McpSdk,
  ) {
    this.provider = new KeptSignIn(home, url, server);
  }

  /** Refreshes the access token when it expires within a minute and can be refreshed. Never rejects. */
  fresh(now = Date.now()): Promise<void> {
    const entry = this.provider.entry();
    const due = entry?.expiresAt !== undefined && entry.expiresAt - now < REFRESH_MARGIN_MS;
    if (!due || !entry?.tokens?.refresh_token) return Promise.resolve();
    this.#refreshing ??= this.sdk
      .auth(this.provider, { serverUrl: this.provider.url })
      .then(
        () => {},
        () => {}, // the server's answer to the old token says what is wrong
      )
      .finally(() => {
        this.#refreshing = undefined;
      });
    return this.#refreshing;
  }
}

/**
 * The sign-in a run uses for an HTTP or SSE server: the one kept in `home` under the server's exact
 * URL, if any (a project naming another URL for the same server name finds none).
 */
export function runSignIn(
  config: McpServerConfig,
  server: string,
  home: string | undefined,
  sdk: McpSdk,
): RunSignIn | undefined {
  if (home === undefined || (config.type !== "http" && config.type !== "sse") || !config.url)
    return undefined;
  let session: RunSignIn;
  try {
    session = new RunSignIn(home, config.url, server, sdk);
  } catch {
    return undefined;
  }
  return session.provider.entry()?.tokens ? session : undefined;
}

/**
 * A failure that a sign-in would fix, as one line naming `agentmd mcp login`: the server answered
 * 401 (with no sign-in kept, or one it no longer takes), or a sign-in was needed and not there.
 */
export function signInFailure(e: unknown, server: string, sdk: McpSdk): string | undefined {
  if (e instanceof SignInNeededError) return e.message;
  const code = (e as { code?: unknown }).code;
  const refused =
    e instanceof sdk.UnauthorizedError ||
    e instanceof sdk.OAuthError ||
    ((e instanceof sdk.StreamableHTTPError || e instanceof sdk.SseError) && code === 401);
  return refused ? signInNeededMessage(server) : undefined;
}
