import { AgentmdError } from "../../shared/errors.js";
import { runProcess } from "../../shared/run-process.js";

type Env = Readonly<Record<string, string | undefined>>;

/** A settings command that yields or refreshes a credential, with the file that names it. */
export interface HelperCommand {
  readonly command: string;
  /** Where it was set, for messages (`~/.claude/settings.json`). */
  readonly source: string;
}

/** The credential commands of the settings (Claude Code's keys), each optional. */
export interface CredentialHelpers {
  /** Prints the API key (or a gateway's token) on stdout. */
  readonly apiKeyHelper?: HelperCommand;
  /** Refreshes the AWS credentials the default chain reads (e.g. `aws sso login`). */
  readonly awsAuthRefresh?: HelperCommand;
  /** Prints AWS credentials as JSON (`{"Credentials": {"AccessKeyId", …}}`). */
  readonly awsCredentialExport?: HelperCommand;
}

const HELPER_TIMEOUT_MS = 60_000;
const DEFAULT_KEY_TTL_MS = 5 * 60_000;

/** What a helper printed, or why it gave nothing: one line naming the key and its file. */
export async function runHelper(
  name: keyof CredentialHelpers,
  helper: HelperCommand,
  env: Env,
  cwd: string,
): Promise<{ readonly ok: true; readonly out: string } | { readonly ok: false; readonly message: string }> {
  const r = await runProcess("/bin/sh", ["-c", helper.command], {
    env,
    cwd,
    timeoutMs: HELPER_TIMEOUT_MS,
    maxChars: 64_000,
  });
  const where = `${name} '${helper.command}' (${helper.source})`;
  if (r.kind === "exited" && r.code === 0) return { ok: true, out: r.stdout.text().trim() };
  const why =
    r.kind === "exited"
      ? `exited ${r.code}`
      : r.kind === "timed-out"
        ? `did not finish in ${HELPER_TIMEOUT_MS / 1000} s`
        : r.kind === "not-started"
          ? `could not start: ${r.message}`
          : r.kind;
  const err = r.stderr.text().trim().split("\n").slice(-3).join(" ");
  return { ok: false, message: `${where} ${why}${err ? `: ${err}` : ""}` };
}

/**
 * The key an `apiKeyHelper` prints, kept for `CLAUDE_CODE_API_KEY_HELPER_TTL_MS` (5 minutes by
 * default) and asked again after it, or at once after `forget()` (a 401). A helper that fails or
 * prints nothing rejects with one line saying so.
 */
export function keyFromHelper(helper: HelperCommand, env: Env, cwd: string) {
  const ttl = Number(env.CLAUDE_CODE_API_KEY_HELPER_TTL_MS) || DEFAULT_KEY_TTL_MS;
  let kept: { key: string; at: number } | undefined;
  return {
    async key(): Promise<string> {
      if (kept && Date.now() - kept.at < ttl) return kept.key;
      const r = await runHelper("apiKeyHelper", helper, env, cwd);
      if (!r.ok) throw new HelperError(r.message);
      const key = r.out.split("\n")[0]?.trim() ?? "";
      if (!key) throw new HelperError(`apiKeyHelper '${helper.command}' (${helper.source}) printed no key`);
      kept = { key, at: Date.now() };
      return key;
    },
    forget(): void {
      kept = undefined;
    },
  };
}

/** AWS credentials as `aws configure export-credentials` and Claude Code's `awsCredentialExport` print them. */
export interface AwsCredentials {
  readonly awsAccessKey: string;
  readonly awsSecretKey: string;
  readonly awsSessionToken?: string;
}

/** The credentials an `awsCredentialExport` command prints, or a `HelperError` saying what was wrong. */
export async function exportedAwsCredentials(
  helper: HelperCommand,
  env: Env,
  cwd: string,
): Promise<AwsCredentials> {
  const r = await runHelper("awsCredentialExport", helper, env, cwd);
  if (!r.ok) throw new HelperError(r.message);
  let parsed: unknown;
  try {
    parsed = JSON.parse(r.out);
  } catch {
    parsed = undefined;
  }
  const c = (parsed as { Credentials?: Record<string, unknown> } | undefined)?.Credentials;
  const id = c?.AccessKeyId;
  const secret = c?.SecretAccessKey;
  if (typeof id !== "string" || typeof secret !== "string")
    throw new HelperError(
      `awsCredentialExport '${helper.command}' (${helper.source}) did not print {"Credentials": {"AccessKeyId": …, "SecretAccessKey": …, "SessionToken": …}}`,
    );
  const token = c?.SessionToken;
  return {
    awsAccessKey: id,
    awsSecretKey: secret,
    ...(typeof token === "string" && { awsSessionToken: token }),
  };
}

/**
 * What keeps a provider from being reached at all, found before any request (a credential command
 * that failed, a client package not installed, no way to sign in): said as it is, in one line after
 * the provider's name, and never retried as a network fault.
 */
export class ProviderSetupError extends AgentmdError {}

/** A credential helper that failed. */
export class HelperError extends ProviderSetupError {}
