import type { ModelRequest } from "../model.js";
import {
  type CredentialHelpers,
  exportedAwsCredentials,
  HelperError,
  keyFromHelper,
  runHelper,
} from "./credential-helpers.js";
import { entraTokens } from "./foundry-auth.js";
import { PROVIDER_LABEL, type ProviderChoice } from "./provider-choice.js";
import { type ClientBasics, type ModelClient, providerClient } from "./provider-client.js";
import { providerModelId } from "./provider-models.js";

type Env = Readonly<Record<string, string | undefined>>;

/** One run's way to its provider: the client (built on first use), the ids it is sent, renewal. */
export interface ProviderSession {
  readonly choice: ProviderChoice;
  /** "Amazon Bedrock (us-east-1) at URL", "the model API at URL": who answered, for messages. */
  readonly where: string;
  client(): Promise<ModelClient>;
  /** The id this provider is sent for agentmd's model id. */
  modelId(model: string): string;
  /**
   * After the provider refused the credential: re-run what can renew it (`apiKeyHelper`,
   * `awsAuthRefresh`, `awsCredentialExport`) and build the client anew. True when something did.
   */
  renew(): Promise<boolean>;
  /**
   * The request as this provider takes it: what it does not offer (Bedrock has no web search tool)
   * is left out, with a notice the first time.
   */
  adapt(params: ModelRequest): { readonly params: ModelRequest; readonly notice?: string };
}

export interface SessionOptions {
  readonly env: Env;
  readonly cwd: string;
  readonly helpers: CredentialHelpers;
  readonly basics: ClientBasics;
  /** The Anthropic API's base URL, for messages. */
  readonly anthropicURL: string;
}

export function providerSession(choice: ProviderChoice, o: SessionOptions): ProviderSession {
  const helperKey =
    choice.kind === "anthropic" && o.helpers.apiKeyHelper && !o.basics.authToken
      ? keyFromHelper(o.helpers.apiKeyHelper, o.env, o.cwd)
      : undefined;
  const entra =
    choice.kind === "foundry" && !choice.apiKey && !choice.skipAuth ? entraTokens(o.env, o.cwd) : undefined;
  let built: Promise<ModelClient> | undefined;
  const build = async (): Promise<ModelClient> => {
    const aws =
      choice.kind === "bedrock" && o.helpers.awsCredentialExport
        ? await exportedAwsCredentials(o.helpers.awsCredentialExport, o.env, o.cwd)
        : undefined;
    return providerClient(choice, {
      ...o.basics,
      env: o.env,
      ...(helperKey && { apiKey: () => helperKey.key() }),
      ...(entra && { entraToken: () => entra.token() }),
      ...(aws && { aws }),
    });
  };
  let told = false;
  return {
    choice,
    where: whereOf(choice, o.anthropicURL),
    adapt(params) {
      if (choice.kind !== "bedrock" || !params.tools?.some(isWebSearch)) return { params };
      const tools = params.tools.filter((t) => !isWebSearch(t));
      const kept = { ...params, ...(tools.length > 0 ? { tools } : { tools: undefined }) };
      if (told) return { params: kept };
      told = true;
      return {
        params: kept,
        notice: "Amazon Bedrock offers no web search tool: WebSearch is left out of this run's requests",
      };
    },
    client() {
      built ??= build();
      // A build that failed is tried again on the next request rather than kept.
      built.catch(() => {
        built = undefined;
      });
      return built;
    },
    modelId: (model) => providerModelId(choice, model, o.env),
    async renew() {
      if (helperKey || entra) {
        helperKey?.forget();
        entra?.forget();
        return true;
      }
      if (choice.kind !== "bedrock") return false;
      const { awsAuthRefresh, awsCredentialExport } = o.helpers;
      if (awsAuthRefresh) {
        const r = await runHelper("awsAuthRefresh", awsAuthRefresh, o.env, o.cwd);
        if (!r.ok) throw new HelperError(r.message);
      }
      if (!awsAuthRefresh && !awsCredentialExport) return false;
      built = undefined;
      return true;
    },
  };
}

function whereOf(choice: ProviderChoice, anthropicURL: string): string {
  switch (choice.kind) {
    case "anthropic":
      return `the model API at ${anthropicURL}`;
    case "bedrock":
      return `${PROVIDER_LABEL.bedrock} (${choice.region})${choice.baseURL ? ` at ${choice.baseURL}` : ""}`;
    case "vertex":
      return `${PROVIDER_LABEL.vertex} (${choice.region}${choice.projectId ? `, project ${choice.projectId}` : ""})${choice.baseURL ? ` at ${choice.baseURL}` : ""}`;
    case "foundry":
      return `${PROVIDER_LABEL.foundry} (${choice.baseURL ?? choice.resource})`;
  }
}

const isWebSearch = (t: NonNullable<ModelRequest["tools"]>[number]) =>
  "type" in t && typeof t.type === "string" && t.type.startsWith("web_search");
