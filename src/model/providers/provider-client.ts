import type { Anthropic, BaseAnthropic } from "@anthropic-ai/sdk";
import type { AwsCredentials } from "./credential-helpers.js";
import type { ProviderChoice } from "./provider-choice.js";
import { loadClient, PROVIDER_PACKAGE, requireBeside } from "./provider-packages.js";
import { vertexAuth } from "./vertex-auth.js";

/** What the model seam asks of a client: the streamed Messages request, by either of its doors. */
export type ModelClient = Pick<BaseAnthropic, "post"> & {
  readonly messages: Pick<Anthropic["messages"], "create">;
};

/** What every provider's client is built with. */
export interface ClientBasics {
  readonly fetch?: typeof globalThis.fetch;
  /** The Anthropic API's key (or an apiKeyHelper's), or a gateway's bearer token. */
  readonly apiKey?: string | (() => Promise<string>);
  readonly authToken?: string;
  readonly baseURL?: string;
  /** Bedrock: credentials an `awsCredentialExport` printed, over the default chain. */
  readonly aws?: AwsCredentials;
  /** Foundry without a key: Microsoft Entra ID tokens. */
  readonly entraToken?: () => Promise<string>;
  /** The run's environment (the process's with the settings' `env` over it). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

// Retries are the model seam's, so that every one is seen and said; errors reach the run as events,
// so the SDK's own console logging would only repeat them.
const QUIET = { maxRetries: 0, logLevel: "off" } as const;

/**
 * The client of the provider chosen, built with the options given and never from the process's
 * environment behind their back (a provider SDK reads its variables only where agentmd passes none).
 * A cloud provider's SDK is loaded only when it is chosen: signing (SigV4), tokens (Google ADC) and
 * wire formats (Bedrock's event stream, Vertex's `:streamRawPredict`) are the SDKs' own.
 */
export async function providerClient(choice: ProviderChoice, o: ClientBasics): Promise<ModelClient> {
  const fetch = o.fetch && { fetch: o.fetch };
  switch (choice.kind) {
    case "anthropic": {
      // Loaded with the first request, not with the module: a command that builds a run without
      // sending one (`agentmd tools`) never reads the client.
      const { anthropicClient } = await import("./anthropic-client.js");
      return anthropicClient({
        ...(o.authToken ? { authToken: o.authToken, apiKey: null } : { apiKey: o.apiKey ?? "replay" }),
        ...(o.baseURL && { baseURL: o.baseURL }),
        ...fetch,
        ...QUIET,
      });
    }
    case "bedrock": {
      const { AnthropicBedrock } = await loadClient("bedrock", () => import("@anthropic-ai/bedrock-sdk"));
      const common = {
        awsRegion: choice.region,
        ...(choice.baseURL && { baseURL: choice.baseURL }),
        apiKey: choice.bearerToken ?? null,
        skipAuth: choice.skipAuth,
        ...fetch,
        ...QUIET,
      };
      const aws = o.aws ?? staticAwsKeys(o.env ?? {});
      if (!aws && o.env?.AWS_PROFILE && o.env.AWS_PROFILE !== process.env.AWS_PROFILE)
        return new AnthropicBedrock({ ...common, providerChainResolver: profileChain(o.env.AWS_PROFILE) });
      return aws
        ? new AnthropicBedrock({
            ...common,
            awsAccessKey: aws.awsAccessKey,
            awsSecretKey: aws.awsSecretKey,
            awsSessionToken: aws.awsSessionToken ?? null,
          })
        : new AnthropicBedrock(common);
    }
    case "vertex": {
      const { AnthropicVertex } = await loadClient("vertex", () => import("@anthropic-ai/vertex-sdk"));
      const auth = choice.skipAuth
        ? { authClient: noGoogleAuth(choice.projectId), projectId: choice.projectId ?? null }
        : vertexAuth(o.env ?? {}, choice.projectId);
      return new AnthropicVertex({
        region: choice.region,
        ...(choice.baseURL && { baseURL: choice.baseURL }),
        ...auth,
        ...fetch,
        ...QUIET,
      });
    }
    case "foundry": {
      const { AnthropicFoundry } = await loadClient("foundry", () => import("@anthropic-ai/foundry-sdk"));
      const where = choice.baseURL ? { baseURL: choice.baseURL } : { resource: choice.resource ?? "" };
      const sign = choice.skipAuth
        ? { apiKey: "none", fetch: withoutAuth(o.fetch ?? globalThis.fetch) }
        : choice.apiKey
          ? { apiKey: choice.apiKey }
          : { azureADTokenProvider: o.entraToken };
      return new AnthropicFoundry({ ...where, ...fetch, ...sign, ...QUIET });
    }
  }
}

/** Keys set in the run's environment (the settings' `env` among it), as the AWS CLI takes them. */
function staticAwsKeys(env: Readonly<Record<string, string | undefined>>): AwsCredentials | undefined {
  const id = env.AWS_ACCESS_KEY_ID;
  const secret = env.AWS_SECRET_ACCESS_KEY;
  if (!id || !secret) return undefined;
  const token = env.AWS_SESSION_TOKEN;
  return { awsAccessKey: id, awsSecretKey: secret, ...(token && { awsSessionToken: token }) };
}

/** The AWS default chain for a profile the settings' `env` names (the process's own is the SDK's default). */
function profileChain(profile: string) {
  const chain = requireBeside<typeof import("@aws-sdk/credential-providers")>(
    PROVIDER_PACKAGE.bedrock,
    "@aws-sdk/credential-providers",
  );
  return async () => chain.fromNodeProviderChain({ profile });
}

type VertexOptions = NonNullable<
  ConstructorParameters<typeof import("@anthropic-ai/vertex-sdk").AnthropicVertex>[0]
>;

/** Google sign-in skipped (`CLAUDE_CODE_SKIP_VERTEX_AUTH`): a gateway in front of Vertex signs. */
function noGoogleAuth(projectId: string | undefined): NonNullable<VertexOptions["authClient"]> {
  const client = { projectId, getRequestHeaders: async () => new Headers() };
  return client as unknown as NonNullable<VertexOptions["authClient"]>;
}

/** A fetch that sends no credential of its own (a gateway in front of the provider adds it). */
function withoutAuth(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.delete("x-api-key");
    headers.delete("api-key");
    headers.delete("authorization");
    return fetch(input, { ...init, headers });
  };
}
