/**
 * agentmd's own credentials: the `agentmd` launcher hands them over on a file descriptor so that
 * no process it starts finds them in its environment. Nothing agentmd starts or expands is given
 * them: not a command, not a hook, not an MCP server's `${VAR}`.
 */
export const OWN_SECRETS: readonly string[] = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"];

/** Whether a variable is one of agentmd's own credentials. */
export const isOwnSecret = (name: string): boolean => OWN_SECRETS.includes(name);

/** `${VAR}` and `${VAR:-default}`, as MCP server definitions write them (Claude Code's grammar). */
export const VARIABLE_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The first of agentmd's credentials that `text` names as `${VAR}`, if any. Pure. */
export function ownSecretIn(text: string): string | undefined {
  for (const m of text.matchAll(VARIABLE_REFERENCE)) if (isOwnSecret(m[1] as string)) return m[1];
  return undefined;
}
