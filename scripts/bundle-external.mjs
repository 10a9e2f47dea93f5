// What the bundles (scripts/bundle.mjs, scripts/check-bundle.mjs) leave out, to be found at run time.
export const EXTERNAL = [
  // jiti finds its own files (and a project's custom tools) at run time: an installed dependency.
  "jiti",
  // Optional packages a user installs beside agentmd to run on a cloud provider, loaded only when
  // it is chosen (src/model/providers/provider-packages.ts); never part of the bundle.
  "@anthropic-ai/bedrock-sdk",
  "@anthropic-ai/vertex-sdk",
  "@anthropic-ai/foundry-sdk",
];
