import type { McpServerConfig } from "../definitions/types.js";

/**
 * `${VAR}` and `${VAR:-default}` in a server's command, args, env, cwd, url and headers, as Claude
 * Code expands them. A variable that is unset (and has no default) is reported, not left as text:
 * a server started with a literal `${TOKEN}` fails in ways that are hard to trace. Pure.
 */
export function expandConfig(
  config: McpServerConfig,
  env: Readonly<Record<string, string | undefined>>,
): { config: McpServerConfig; missing: string[] } {
  const missing = new Set<string>();
  const x = (s: string) => expandVars(s, env, missing);
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
  return { config: out, missing: [...missing] };
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function expandVars(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  missing: Set<string> = new Set(),
): string {
  return text.replace(VAR, (_all, name: string, fallback: string | undefined) => {
    const v = Object.hasOwn(env, name) ? env[name] : undefined;
    if (v !== undefined && v !== "") return v;
    if (fallback !== undefined) return fallback;
    missing.add(name);
    return "";
  });
}
