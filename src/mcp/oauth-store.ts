import path from "node:path";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { withFileLock } from "../shared/file-lock.js";
import { readJsonStore } from "../shared/json-store.js";
import { makeFolderOf, writeFileWhole } from "../shared/write-whole.js";

/**
 * One sign-in to an HTTP MCP server, kept under the exact URL it was made for: the client the
 * authorization server registered, its tokens (as the SDK gave them, with their `issuer`), when the
 * access token expires, and what discovery found.
 */
export interface SignIn {
  /** The server's name where it was signed in to (for `mcp logout` and messages only). */
  readonly name: string;
  readonly client?: OAuthClientInformationMixed;
  readonly tokens?: OAuthTokens;
  /** Milliseconds since the epoch; absent when the server said nothing of expiry. */
  readonly expiresAt?: number;
  readonly discovery?: OAuthDiscoveryState;
  readonly savedAt: string;
}

/**
 * `~/.agentmd/mcp-auth.json`: sign-ins by server URL, in the home folder of the environment
 * agentmd was started with (never a project's settings, which could point it elsewhere).
 */
export function signInFile(home: string): string {
  return path.join(home, ".agentmd", "mcp-auth.json");
}

/**
 * The key a server's sign-in is kept under: its URL as the URL parser writes it. A project that
 * names another URL for the same server name looks under another key, and finds nothing.
 */
export function serverUrlKey(url: string): string {
  return new URL(url).href;
}

/** The sign-in kept for `url`, read afresh (another agentmd may have refreshed it). Never throws. */
export function readSignIn(home: string, url: string): SignIn | undefined {
  try {
    const entry = signIns(signInFile(home))[serverUrlKey(url)];
    return isSignIn(entry) ? entry : undefined;
  } catch {
    return undefined;
  }
}

/** Every sign-in of the file, by URL (`mcp logout` finds a name's). Throws `WriteError` when unreadable. */
export function readSignIns(home: string): Readonly<Record<string, SignIn>> {
  const out: Record<string, SignIn> = {};
  for (const [url, entry] of Object.entries(signIns(signInFile(home)))) if (isSignIn(entry)) out[url] = entry;
  return out;
}

/**
 * Changes the sign-in of `url` under the file's lock: `change` gets what is kept (or undefined) and
 * returns what to keep (undefined removes it). Every other server's entry is kept as the file holds
 * it. Written whole, readable by the user alone (0600, in a 0700 folder). Throws `WriteError`.
 */
export function changeSignIn(
  home: string,
  url: string,
  change: (now: SignIn | undefined) => SignIn | undefined,
): void {
  const file = signInFile(home);
  const key = serverUrlKey(url);
  makeFolderOf(file, 0o700);
  withFileLock(file, () => {
    const servers = signIns(file);
    const now = servers[key];
    const next = change(isSignIn(now) ? now : undefined);
    if (next === undefined && now === undefined) return;
    if (next === undefined) delete servers[key];
    else servers[key] = next;
    writeFileWhole(file, `${JSON.stringify({ version: 1, servers }, null, 2)}\n`, {
      mode: 0o600,
      ownerOnly: true,
    });
  });
}

/** The file's entries as it holds them; a file that is there but unreadable throws `WriteError`. */
const signIns = (file: string) =>
  readJsonStore(file, {
    key: "servers",
    noun: "a sign-in file",
    away: "(every MCP server is then signed out)",
  });

function isSignIn(x: unknown): x is SignIn {
  if (typeof x !== "object" || x === null) return false;
  const e = x as Record<string, unknown>;
  const tokens = e.tokens as Record<string, unknown> | undefined;
  return (
    typeof e.name === "string" &&
    (tokens === undefined || (typeof tokens === "object" && typeof tokens?.access_token === "string")) &&
    (e.expiresAt === undefined || typeof e.expiresAt === "number")
  );
}
