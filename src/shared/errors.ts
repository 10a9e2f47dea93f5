/**
 * The errors agentmd throws: misuse by code and configuration a user must fix. Each has a stable
 * `name` (its class name) and a message that says what to do. Failures a model should see are never
 * thrown: they are tool results and run events.
 */
export class AgentmdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Broken configuration a user must fix (a broken agent.md, no API key); the message says how. */
export class ConfigError extends AgentmdError {}

/** Redis cannot be reached (or the URL is not one): a user must fix the URL or start Redis. */
export class RedisUnavailableError extends AgentmdError {}

/**
 * A file agentmd keeps (settings, the trust file) cannot be written or is not one it can read
 * back: the disk is full, the folder is a file, it was hand-edited into something else. The
 * message names the file and why in one line; the file is left as it was.
 */
export class WriteError extends ConfigError {}
