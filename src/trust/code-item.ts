/** What of a project's files agentmd would run: each piece of repository code, as listed and digested. */
export type CodeKind =
  | "hook"
  | "file"
  | "mcp"
  | "tool"
  | "env"
  | "baseUrl"
  | "git"
  | "unfollowed"
  | "credential";

export interface CodeItem {
  readonly kind: CodeKind;
  /**
   * What it is, kept when only its content changes (a tool module's path, an env key, a server's
   * name): two listings are compared item by item on it.
   */
  readonly id: string;
  /** How it is shown, one line, without secrets (an env value or a header is never shown). */
  readonly text: string;
  /** The file it is written in (or is), relative to the project folder. */
  readonly file: string;
  /** sha256 of everything that decides what it does: a module's bytes, a hook's command, an env value. */
  readonly hash: string;
}

/** A project's repository code, as found now. */
export interface RepositoryCode {
  /** The project folder's real path: the key its trust is kept under. */
  readonly dir: string;
  /** Sorted by id; empty for a project of markdown and lists only. */
  readonly items: readonly CodeItem[];
  /** sha256 over every item's id and hash: equal digests mean the same code. */
  readonly digest: string;
}
