import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationFull,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { AgentmdError } from "../shared/errors.js";
import { changeSignIn, readSignIn, type SignIn } from "./oauth-store.js";

/** What a run says when a server wants a sign-in it does not have (or one that no longer works). */
export class SignInNeededError extends AgentmdError {}

export const signInNeededMessage = (server: string) =>
  `MCP server '${server}' needs a sign-in: run 'agentmd mcp login ${server}'`;

/** Whether a run's warning is the one that says a server needs a sign-in (`-p` says it, quiet or not). */
export const asksForSignIn = (warning: string): boolean =>
  /^MCP server '[^'\n]*' needs a sign-in: run 'agentmd mcp login [^'\n]*'/.test(warning);

/** agentmd as an OAuth client: a public client (no secret) that gets its code on a loopback redirect. */
export function clientMetadata(redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: "agentmd",
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/** When tokens that expire in `expiresIn` seconds, got now, expire (ms since the epoch). */
export const expiryOf = (tokens: OAuthTokens, now = Date.now()): number | undefined =>
  typeof tokens.expires_in === "number" ? now + tokens.expires_in * 1000 : undefined;

/**
 * The sign-in kept for one server URL, as the SDK's `auth()` and HTTP transports use it during a
 * run: every read is from the file (another agentmd may have refreshed the tokens), a refresh is
 * written back, and nothing here registers a client or starts a sign-in: that is `mcp login`'s
 * (asked to, it throws `SignInNeededError`).
 */
export class KeptSignIn implements OAuthClientProvider {
  /** The access token this provider last handed out: the one a server's refusal is about. */
  #handedOut: string | undefined;

  constructor(
    readonly home: string,
    readonly url: string,
    readonly server: string,
  ) {}

  entry(): SignIn | undefined {
    return readSignIn(this.home, this.url);
  }

  get redirectUrl(): string {
    const client = this.entry()?.client as Partial<OAuthClientInformationFull> | undefined;
    return String(client?.redirect_uris?.[0] ?? "http://127.0.0.1/callback");
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(this.redirectUrl);
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.entry()?.client;
  }

  tokens(): OAuthTokens | undefined {
    const tokens = this.entry()?.tokens;
    this.#handedOut = tokens?.access_token;
    return tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    const savedAt = new Date().toISOString();
    const expiresAt = expiryOf(tokens);
    changeSignIn(this.home, this.url, (now) => ({
      ...(now ?? { name: this.server }),
      tokens,
      ...(expiresAt === undefined ? { expiresAt: undefined } : { expiresAt }),
      savedAt,
    }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.entry()?.discovery;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    changeSignIn(this.home, this.url, (now) => now && { ...now, discovery });
  }

  /** Tokens the server refused are dropped, unless another agentmd has replaced them meanwhile. */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    changeSignIn(this.home, this.url, (now) => {
      if (!now) return now;
      if (scope === "discovery") return { ...now, discovery: undefined };
      if (scope === "verifier") return now;
      const same = now.tokens?.access_token === this.#handedOut;
      const tokens = same ? { tokens: undefined, expiresAt: undefined } : {};
      return scope === "client" ? { ...now, client: undefined } : { ...now, ...tokens };
    });
  }

  redirectToAuthorization(): void {
    throw new SignInNeededError(signInNeededMessage(this.server));
  }

  saveCodeVerifier(): void {
    throw new SignInNeededError(signInNeededMessage(this.server));
  }

  codeVerifier(): string {
    throw new SignInNeededError(signInNeededMessage(this.server));
  }
}

/**
 * `agentmd mcp login`'s provider: a sign-in from nothing (the client is registered anew, for this
 * login's loopback redirect), kept in memory until the tokens come, then written whole over what
 * the file held for the URL.
 */
export class NewSignIn implements OAuthClientProvider {
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;

  constructor(
    readonly home: string,
    readonly url: string,
    readonly server: string,
    readonly redirectUrl: string,
    private readonly expectedState: string,
    private readonly onUrl: (authorizationUrl: URL) => void,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(this.redirectUrl);
  }

  state(): string {
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.#client = client;
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
    const expiresAt = expiryOf(tokens);
    const entry: SignIn = {
      name: this.server,
      ...(this.#client && { client: this.#client }),
      tokens,
      ...(expiresAt !== undefined && { expiresAt }),
      ...(this.#discovery && { discovery: this.#discovery }),
      savedAt: new Date().toISOString(),
    };
    changeSignIn(this.home, this.url, () => entry);
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.#discovery = discovery;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.onUrl(authorizationUrl);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error("no sign-in was started");
    return this.#verifier;
  }
}
