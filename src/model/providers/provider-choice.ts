import { ConfigError } from "../../shared/errors.js";
import { PROVIDER_SWITCHES } from "../../shared/model-variables.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Where a run's model requests go: Anthropic's API, or Claude on a cloud provider. */
export type ProviderChoice =
  | { readonly kind: "anthropic" }
  | {
      readonly kind: "bedrock";
      readonly region: string;
      readonly baseURL?: string;
      readonly skipAuth: boolean;
      /** `AWS_BEARER_TOKEN_BEDROCK`: a Bedrock API key, sent instead of SigV4. */
      readonly bearerToken?: string;
    }
  | {
      readonly kind: "vertex";
      readonly region: string;
      readonly projectId?: string;
      readonly baseURL?: string;
      readonly skipAuth: boolean;
    }
  | {
      readonly kind: "foundry";
      readonly resource?: string;
      readonly baseURL?: string;
      /** The resource's key; without one (and without skipAuth), Microsoft Entra ID sign-in. */
      readonly apiKey?: string;
      readonly skipAuth: boolean;
    };

export type ProviderKind = ProviderChoice["kind"];

/** How each provider is named to a user. */
export const PROVIDER_LABEL: Readonly<Record<ProviderKind, string>> = {
  anthropic: "the Anthropic API",
  bedrock: "Amazon Bedrock",
  vertex: "Google Vertex AI",
  foundry: "Microsoft Foundry",
};

/** Claude Code's reading of a switch: `1`, `true`, `yes` or `on`, in any case. */
export function isOn(value: string | undefined): boolean {
  return value !== undefined && /^(?:1|true|yes|on)$/i.test(value.trim());
}

const given = (env: Env, name: string) => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};

/**
 * The provider the environment selects (the process's, with the settings' `env` over it), checked
 * before any request: a missing region or resource is a `ConfigError` naming what to set. Two
 * switches at once is an error too: which cloud gets the code is never a guess. Never falls back to
 * the Anthropic API when a provider is selected.
 */
export function chooseProvider(env: Env): ProviderChoice {
  const on = (Object.entries(PROVIDER_SWITCHES) as [Exclude<ProviderKind, "anthropic">, string][]).filter(
    ([, name]) => isOn(env[name]),
  );
  if (on.length > 1)
    throw new ConfigError(
      `${on.map(([, n]) => `${n}=1`).join(" and ")} are both set: choose one provider (unset the others)`,
    );
  const kind = on[0]?.[0];
  if (kind === "bedrock") return bedrock(env);
  if (kind === "vertex") return vertex(env);
  if (kind === "foundry") return foundry(env);
  return { kind: "anthropic" };
}

function bedrock(env: Env): ProviderChoice {
  const region = given(env, "AWS_REGION") ?? given(env, "AWS_DEFAULT_REGION");
  if (!region)
    throw new ConfigError(
      "Amazon Bedrock (CLAUDE_CODE_USE_BEDROCK=1) needs a region: set AWS_REGION (e.g. us-east-1) — it is not read from the AWS config file",
    );
  const baseURL = given(env, "ANTHROPIC_BEDROCK_BASE_URL");
  const bearerToken = given(env, "AWS_BEARER_TOKEN_BEDROCK");
  return {
    kind: "bedrock",
    region,
    skipAuth: isOn(env.CLAUDE_CODE_SKIP_BEDROCK_AUTH),
    ...(baseURL && { baseURL }),
    ...(bearerToken && { bearerToken }),
  };
}

function vertex(env: Env): ProviderChoice {
  const region = given(env, "CLOUD_ML_REGION");
  if (!region)
    throw new ConfigError(
      "Google Vertex AI (CLAUDE_CODE_USE_VERTEX=1) needs a region: set CLOUD_ML_REGION (e.g. us-east5, or global)",
    );
  const projectId = given(env, "ANTHROPIC_VERTEX_PROJECT_ID");
  const skipAuth = isOn(env.CLAUDE_CODE_SKIP_VERTEX_AUTH);
  if (!projectId && skipAuth)
    throw new ConfigError(
      "Google Vertex AI without its own sign-in (CLAUDE_CODE_SKIP_VERTEX_AUTH=1) needs a project: set ANTHROPIC_VERTEX_PROJECT_ID",
    );
  const baseURL = given(env, "ANTHROPIC_VERTEX_BASE_URL");
  return { kind: "vertex", region, skipAuth, ...(projectId && { projectId }), ...(baseURL && { baseURL }) };
}

function foundry(env: Env): ProviderChoice {
  const resource = given(env, "ANTHROPIC_FOUNDRY_RESOURCE");
  const baseURL = given(env, "ANTHROPIC_FOUNDRY_BASE_URL");
  if (!resource && !baseURL)
    throw new ConfigError(
      "Microsoft Foundry (CLAUDE_CODE_USE_FOUNDRY=1) needs a resource: set ANTHROPIC_FOUNDRY_RESOURCE (the name in https://NAME.services.ai.azure.com) or ANTHROPIC_FOUNDRY_BASE_URL",
    );
  if (resource && baseURL)
    throw new ConfigError(
      "ANTHROPIC_FOUNDRY_RESOURCE and ANTHROPIC_FOUNDRY_BASE_URL are both set: set one (the resource's name, or the full URL)",
    );
  const skipAuth = isOn(env.CLAUDE_CODE_SKIP_FOUNDRY_AUTH);
  const apiKey = given(env, "ANTHROPIC_FOUNDRY_API_KEY");
  return {
    kind: "foundry",
    skipAuth,
    ...(resource && { resource }),
    ...(baseURL && { baseURL }),
    ...(apiKey && { apiKey }),
  };
}
