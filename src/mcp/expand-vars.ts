import type { McpServerConfig } from "../definitions/types.js";
import { isOwnSecret, VARIABLE_REFERENCE } from "../shared/own-secrets.js";

/**
 * `${VAR}` and `${VAR:-default}` in a server's command, args, env, cwd, url and headers, as Claude
 * Code expands them. A variable that is unset (and has no default) is reported, not left as text:
 * a server started with a literal `${TOKEN}` fails in ways that are hard to trace. agentmd's own
 * credentials are never expanded (a definition is the project's, and the key is the user's): they
 * are reported in `secrets`, and the server must not start. Pure.
 */
export function expandConfig(
  config: McpServerConfig,
  env: Readonly<Record<string, string | undefined>>,
): { config: McpServerConfig; missing: string[]; secrets: string[] } {
  const missing = new Set<string>();
  const secrets = new Set<string>();
  const x = (s: string) => expandVars(s, env, missing, secrets);
  const map = (m: Readonly<Record<string, string>> | undefined) =>
    m && Object.fromEntries(Object.entries(m).map(([k, v]) => [k, x(v)]));
  const out: McpServerConfig = {
    ...config,
    ...(config.command !== undefined && { command: x(config.command) }),
    ...(config.args && { args: config.args.map(x) }),
    ...(config.env && { env: map(config.env) }),
    ...(config.cwd !== undefined && { cwd: x(config.cwd) }),
    ...(config.url !== undefined && { url: x(config.url) }),
    ...(config.headers && { headers: map(config.headers) }),
  };
  return { config: out, missing: [...missing], secrets: [...secrets] };
}

export function expandVars(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  missing: Set<string> = new Set(),
  secrets: Set<string> = new Set(),
): string {
  return text.replace(VARIABLE_REFERENCE, (_all, name: string, fallback: string | undefined) => {
    if (isOwnSecret(name)) {
      secrets.add(name);
      return "";
    }
    const v = Object.hasOwn(env, name) ? env[name] : undefined;
    if (v !== undefined && v !== "") return v;
    if (fallback !== undefined) return fallback;
    missing.add(name);
    return "";
  });
}
