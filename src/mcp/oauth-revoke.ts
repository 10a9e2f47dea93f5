import type { OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { SignIn } from "./oauth-store.js";

/** How long one revocation request may take before `mcp logout` forgets the sign-in anyway. */
const REVOKE_TIMEOUT_MS = 10_000;

/**
 * Revokes a sign-in's tokens at the authorization server that issued them (RFC 7009), when the
 * metadata its login found names a `revocation_endpoint`: the refresh token first (which ends the
 * access tokens made from it at most servers), then the access token. Nothing is sent anywhere else:
 * the endpoint is the one the issuing server's metadata gave at login. Returns the sentence that says
 * what was not revoked (undefined: all was, or there was nothing to revoke there). Never rejects.
 */
export async function revokeSignIn(entry: SignIn): Promise<string | undefined> {
  // OpenID Connect's metadata names it too, beside RFC 8414's.
  const metadata: Record<string, unknown> = { ...entry.discovery?.authorizationServerMetadata };
  const endpoint = metadata.revocation_endpoint;
  if (typeof endpoint !== "string" || !entry.tokens || !entry.client) return undefined;
  const given = metadata.revocation_endpoint_auth_methods_supported;
  const methods = Array.isArray(given) ? given.filter((m) => typeof m === "string") : [];
  if (!secureEndpoint(endpoint))
    return `its tokens were not revoked: the revocation endpoint ${endpoint} is neither HTTPS nor loopback`;
  const problems: string[] = [];
  const tokens = [
    ["refresh_token", entry.tokens.refresh_token],
    ["access_token", entry.tokens.access_token],
  ] as const;
  for (const [hint, token] of tokens) {
    if (!token) continue;
    const why = await revoke(endpoint, token, hint, entry.client, methods);
    if (why === undefined) continue;
    problems.push(`the ${hint.replace("_", " ")}: ${why.text}`);
    if (why.unreachable) break;
  }
  return problems.length === 0
    ? undefined
    : `could not revoke its tokens at ${endpoint} (${problems.join("; ")})`;
}

/** Tokens go over HTTPS only, or to this machine (OAuth 2.1's rule for its endpoints). */
function secureEndpoint(endpoint: string): boolean {
  try {
    const u = new URL(endpoint);
    return u.protocol === "https:" || (u.protocol === "http:" && LOOPBACK.has(u.hostname));
  } catch {
    return false;
  }
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

async function revoke(
  endpoint: string,
  token: string,
  hint: string,
  client: OAuthClientInformationMixed,
  methods: readonly string[],
): Promise<{ text: string; unreachable?: true } | undefined> {
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  const secret = client.client_secret;
  // A confidential client authenticates as the server says it takes (Basic unless it takes only
  // the form); a public one (agentmd registers as one) names itself.
  if (secret && methods.includes("client_secret_basic") && !methods.includes("client_secret_post"))
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
  else {
    body.set("client_id", client.client_id);
    if (secret) body.set("client_secret", secret);
  }
  try {
    const r = await fetch(endpoint, {
      method: "POST",
      headers,
      body,
      redirect: "error",
      signal: AbortSignal.timeout(REVOKE_TIMEOUT_MS),
    });
    await r.body?.cancel();
    return r.ok ? undefined : { text: `it answered ${r.status}${r.statusText ? ` ${r.statusText}` : ""}` };
  } catch (e) {
    const cause = (e as Error & { cause?: Error }).cause?.message;
    return { text: `it could not be reached (${cause ?? (e as Error).message})`, unreachable: true };
  }
}
