/**
 * The environment variables agentmd's model client reads, by Claude Code's names: which provider
 * (Anthropic's API, Amazon Bedrock, Google Vertex AI, Microsoft Foundry), its region, project or
 * resource, its base URL, and which model id each alias stands for. Plain data, read by the model
 * seam and by `check` (a misspelled one in a settings `env` is a near miss of these).
 */

/** The variables that select a provider, as Claude Code reads them. */
export const PROVIDER_SWITCHES: {
  readonly bedrock: string;
  readonly vertex: string;
  readonly foundry: string;
} = {
  bedrock: "CLAUDE_CODE_USE_BEDROCK",
  vertex: "CLAUDE_CODE_USE_VERTEX",
  foundry: "CLAUDE_CODE_USE_FOUNDRY",
};

/** Every variable the model seam reads (for `check`'s did-you-mean on a settings `env` key). */
export const MODEL_VARIABLES: readonly string[] = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_BASE_URL",
  "ANTHROPIC_CUSTOM_HEADERS",
  "ANTHROPIC_MODEL",
  "ANTHROPIC_DEFAULT_SONNET_MODEL",
  "ANTHROPIC_DEFAULT_OPUS_MODEL",
  "ANTHROPIC_DEFAULT_HAIKU_MODEL",
  "ANTHROPIC_SMALL_FAST_MODEL",
  ...Object.values(PROVIDER_SWITCHES),
  "CLAUDE_CODE_SKIP_BEDROCK_AUTH",
  "CLAUDE_CODE_SKIP_VERTEX_AUTH",
  "CLAUDE_CODE_SKIP_FOUNDRY_AUTH",
  "CLAUDE_CODE_API_KEY_HELPER_TTL_MS",
  "ANTHROPIC_BEDROCK_BASE_URL",
  "AWS_REGION",
  "AWS_PROFILE",
  "AWS_BEARER_TOKEN_BEDROCK",
  "ANTHROPIC_VERTEX_BASE_URL",
  "ANTHROPIC_VERTEX_PROJECT_ID",
  "CLOUD_ML_REGION",
  "ANTHROPIC_FOUNDRY_BASE_URL",
  "ANTHROPIC_FOUNDRY_RESOURCE",
  "ANTHROPIC_FOUNDRY_API_KEY",
];
