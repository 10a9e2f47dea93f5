import { ProviderSetupError } from "./credential-helpers.js";
import { PROVIDER_LABEL, type ProviderChoice } from "./provider-choice.js";

/** What to set when a provider has no credential to sign with, by provider. */
const NO_CREDENTIALS: Readonly<Record<ProviderChoice["kind"], string>> = {
  anthropic: "set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, or apiKeyHelper in settings",
  bedrock:
    "set AWS_PROFILE (after `aws sso login`) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK; awsAuthRefresh or awsCredentialExport in settings renew them; CLAUDE_CODE_SKIP_BEDROCK_AUTH=1 behind a gateway that signs",
  vertex:
    "run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS to a key file; CLAUDE_CODE_SKIP_VERTEX_AUTH=1 behind a gateway that signs",
  foundry:
    "set ANTHROPIC_FOUNDRY_API_KEY, or sign in to Microsoft Entra ID (`az login`); CLAUDE_CODE_SKIP_FOUNDRY_AUTH=1 behind a gateway that signs",
};

const CREDENTIAL_TEXT =
  /could not load credentials|credentialsprovidererror|default credentials|failed to acquire google oauth|unable to (?:load|find|locate) credentials|no (?:aws )?credentials|token provider/i;

/**
 * A failure before any answer that no retry can mend: a credential helper that failed, or a provider
 * SDK that found no credential to sign with. One line naming the provider and what to set; undefined
 * for anything else (a network fault is retried as before).
 */
export function credentialFailure(choice: ProviderChoice, e: unknown): string | undefined {
  const helper = causes(e).find((x) => x instanceof ProviderSetupError);
  if (helper) return `${PROVIDER_LABEL[choice.kind]}: ${helper.message}`;
  const texts = chain(e);
  if (!texts.some((t) => CREDENTIAL_TEXT.test(t))) return undefined;
  const why = texts[texts.length - 1] ?? "";
  return `${PROVIDER_LABEL[choice.kind]} has no credentials to use (${why.split("\n")[0]}): ${NO_CREDENTIALS[choice.kind]}`;
}

/** An error and its causes, outermost first. */
function causes(e: unknown): Error[] {
  const out: Error[] = [];
  for (let x = e, i = 0; x instanceof Error && i < 5; x = x.cause, i++) out.push(x);
  return out;
}

/** An error's message and its causes' (name included), outermost first. */
const chain = (e: unknown) => causes(e).map((x) => `${x.name}: ${x.message}`);

/**
 * What to do about a provider's refusal, said after its own words: a model the provider does not
 * have in that region, access denied, credentials expired. Empty when there is nothing to add.
 */
export function refusalHint(choice: ProviderChoice, status: number, text: string, sentModel: string): string {
  if (choice.kind === "anthropic") return "";
  const label = PROVIDER_LABEL[choice.kind];
  if (/expired|security token|unrecognizedclient|invalid.*token/i.test(text))
    return ` — the ${label} credentials were refused or have expired: ${NO_CREDENTIALS[choice.kind]}`;
  if (
    status === 404 ||
    /model identifier|model.*(?:not found|does not exist|isn't supported|not supported)|inference profile/i.test(
      text,
    )
  )
    return ` — ${label} has no model '${sentModel}'${regionOf(choice)}: set ANTHROPIC_DEFAULT_SONNET_MODEL (or _OPUS_, _HAIKU_) or --model to an id your account can use there`;
  if (status === 401 || status === 403)
    return ` — ${label} denied access to '${sentModel}'${regionOf(choice)}: check that model access is enabled and that the credentials may invoke it (${NO_CREDENTIALS[choice.kind]})`;
  return "";
}

const regionOf = (c: ProviderChoice) =>
  c.kind === "bedrock" || c.kind === "vertex" ? ` in ${c.region}` : "";

/** Bedrock's stream exceptions that a retry may mend, as its SDK names them in an `error` event. */
const RETRIED_STREAM_ERRORS: ReadonlySet<string> = new Set([
  "throttlingException",
  "serviceUnavailableException",
  "internalServerException",
  "modelStreamErrorException",
  "modelNotReadyException",
]);

/** A provider's in-stream error type that is retried like overloaded_error. */
export function isRetriedStreamError(type: string): boolean {
  return RETRIED_STREAM_ERRORS.has(type);
}
