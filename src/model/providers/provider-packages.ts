import { createRequire } from "node:module";
import { ProviderSetupError } from "./credential-helpers.js";
import { PROVIDER_LABEL } from "./provider-choice.js";

/**
 * The cloud providers' clients are optional packages: an install of agentmd carries none of them
 * (they weigh some 70 MB with their AWS and Google dependencies), and a user who chooses a cloud
 * installs its client beside agentmd. Each is loaded only when its provider is chosen, and one that
 * is missing is one line naming the package and how to install it.
 */

type CloudKind = "bedrock" | "vertex" | "foundry";

/** The package each cloud provider's client comes in. */
export const PROVIDER_PACKAGE: Readonly<Record<CloudKind, string>> = {
  bedrock: "@anthropic-ai/bedrock-sdk",
  vertex: "@anthropic-ai/vertex-sdk",
  foundry: "@anthropic-ai/foundry-sdk",
};

/** Microsoft's sign-in library, used for Foundry without a key when it is installed. */
export const AZURE_IDENTITY = "@azure/identity";

const here = createRequire(import.meta.url);

/** Where `name` would be loaded from beside agentmd, or undefined when it is not installed. */
export function installedAt(name: string): string | undefined {
  try {
    return here.resolve(name);
  } catch {
    return undefined;
  }
}

/** How a user installs `name` where agentmd can load it. */
export function installHint(name: string): string {
  return `run \`npm install -g ${name}\` (or \`npm install ${name}\` in the project whose agentmd runs)`;
}

/** The line for a provider whose client is not installed; undefined when it is. */
export function missingClient(kind: CloudKind): string | undefined {
  const name = PROVIDER_PACKAGE[kind];
  if (installedAt(name)) return undefined;
  return `${PROVIDER_LABEL[kind]} needs its client ${name}, which is not installed: ${installHint(name)}`;
}

/** Whether `e` says that the package `name` itself (not something it needs) could not be found. */
export function isMissing(e: unknown, name: string): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  return e.message.includes(`'${name}'`) || e.message.includes(`"${name}"`);
}

/**
 * A provider's client module, loaded by `load` (a literal `import()`, which the bundle keeps
 * external); a `ProviderSetupError` naming the package when it is not installed.
 */
export async function loadClient<T>(kind: CloudKind, load: () => Promise<T>): Promise<T> {
  const name = PROVIDER_PACKAGE[kind];
  try {
    return await load();
  } catch (e) {
    if (!isMissing(e, name)) throw e;
    throw new ProviderSetupError(`its client ${name} is not installed: ${installHint(name)}`);
  }
}

/**
 * A package that a provider's client depends on (the AWS credential chain, Google's auth library),
 * loaded from where that client finds it: beside agentmd, or inside the client's own folder when
 * the client was installed on its own.
 */
export function requireBeside<T>(client: string, name: string): T {
  const at = installedAt(client);
  return (at ? createRequire(at) : here)(name) as T;
}
