import { createRequire } from "node:module";
import { runProcess } from "../../shared/run-process.js";
import { ProviderSetupError } from "./credential-helpers.js";
import { AZURE_IDENTITY, installedAt, installHint } from "./provider-packages.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The audience of a Foundry resource's Microsoft Entra ID tokens. */
const RESOURCE = "https://cognitiveservices.azure.com";
const AZ_COMMAND = `az account get-access-token --resource ${RESOURCE} --output json`;
const AZ_TIMEOUT_MS = 60_000;
/** A token is asked for again this long before it expires. */
const EARLY_MS = 5 * 60_000;

/** What agentmd asks of `@azure/identity`, when the user has installed it. */
interface AzureIdentity {
  readonly DefaultAzureCredential: new () => unknown;
  getBearerTokenProvider(credential: unknown, scope: string): () => Promise<string>;
}

/** Microsoft Entra ID tokens for a Foundry resource, and forgetting the one held (after a 401). */
export interface EntraTokens {
  token(): Promise<string>;
  forget(): void;
}

const WAYS_TO_SIGN_IN = `set ANTHROPIC_FOUNDRY_API_KEY, or sign in to Microsoft Entra ID with the Azure CLI (\`az login\`), or install ${AZURE_IDENTITY} for a service principal, workload or managed identity (${installHint(AZURE_IDENTITY)}); CLAUDE_CODE_SKIP_FOUNDRY_AUTH=1 behind a gateway that signs`;

/**
 * Foundry without a key signs in with Microsoft Entra ID, as Claude Code does: through Azure's own
 * default credential chain (`DefaultAzureCredential`: environment, workload identity, managed
 * identity, the Azure CLI, …) when `@azure/identity` is installed beside agentmd, else through the
 * Azure CLI's `az account get-access-token`, which needs no package. A failure is one line saying
 * what to do.
 */
export function entraTokens(env: Env, cwd: string): EntraTokens {
  const identity = installedAt(AZURE_IDENTITY);
  return identity ? azureIdentityTokens(identity) : azureCliTokens(env, cwd);
}

function azureIdentityTokens(at: string): EntraTokens {
  const { DefaultAzureCredential, getBearerTokenProvider } = createRequire(import.meta.url)(
    at,
  ) as AzureIdentity;
  const provider = getBearerTokenProvider(new DefaultAzureCredential(), `${RESOURCE}/.default`);
  return {
    async token() {
      try {
        return await provider();
      } catch (e) {
        // Azure's chain says why each of its ways failed, on lines of their own: one line here.
        const said = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").trim();
        const why = said.length > 400 ? `${said.slice(0, 400)}…` : said;
        throw new ProviderSetupError(
          `Microsoft Entra ID sign-in failed (${AZURE_IDENTITY}: ${why}): run \`az login\`, or set AZURE_CLIENT_ID, AZURE_TENANT_ID and AZURE_CLIENT_SECRET for a service principal, or set ANTHROPIC_FOUNDRY_API_KEY`,
        );
      }
    },
    // The provider keeps and renews its own tokens.
    forget() {},
  };
}

function azureCliTokens(env: Env, cwd: string): EntraTokens {
  let kept: { token: string; until: number } | undefined;
  return {
    async token() {
      if (kept && Date.now() < kept.until) return kept.token;
      kept = await azureCliToken(env, cwd);
      return kept.token;
    },
    forget() {
      kept = undefined;
    },
  };
}

/** A token the Azure CLI prints for the signed-in account, kept until shortly before it expires. */
async function azureCliToken(env: Env, cwd: string): Promise<{ token: string; until: number }> {
  const r = await runProcess("/bin/sh", ["-c", AZ_COMMAND], {
    env,
    cwd,
    timeoutMs: AZ_TIMEOUT_MS,
    maxChars: 64_000,
  });
  if (r.kind === "exited" && r.code === 127)
    throw new ProviderSetupError(`no key, and no way to sign in was found: ${WAYS_TO_SIGN_IN}`);
  const said = r.stderr.text().trim().split("\n").slice(-2).join(" ");
  if (r.kind !== "exited" || r.code !== 0) {
    const how = r.kind === "exited" ? `exited ${r.code}` : r.kind === "timed-out" ? "did not finish" : r.kind;
    throw new ProviderSetupError(
      `Microsoft Entra ID sign-in failed (\`az account get-access-token\` ${how}${said ? `: ${said}` : ""}): run \`az login\`, or ${WAYS_TO_SIGN_IN}`,
    );
  }
  const parsed = parseToken(r.stdout.text());
  if (!parsed)
    throw new ProviderSetupError(
      "Microsoft Entra ID sign-in failed: `az account get-access-token` printed no accessToken",
    );
  return parsed;
}

/** `{"accessToken": …, "expires_on": seconds}` as the Azure CLI prints it. */
function parseToken(out: string): { token: string; until: number } | undefined {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(out) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const token = json.accessToken;
  if (typeof token !== "string" || !token) return undefined;
  const expires = Number(json.expires_on) * 1000;
  const now = Date.now();
  const until =
    Number.isFinite(expires) && expires > now ? expires - Math.min(EARLY_MS, (expires - now) / 2) : now;
  return { token, until };
}
