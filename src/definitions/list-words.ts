/** What a key's name speaks of, when it speaks of a tool list or of permissions. */
export type ListWord = "deny" | "allow" | "permissions" | "tools";

const DENY = /den(y|ied)|disallow|block|exclud|forbid/;
const ALLOW = /allow|permit/;

/**
 * Whether a key agentmd does not read is named like a tool list or permissions: it holds (letter
 * case, `-`, `_` and spaces aside) `deny`, `denied`, `disallow`, `block`, `exclude`, `forbid` (a
 * deny list), `allow`, `permit` (an allow-list), `permission` or `tools`. Such a key is an error
 * wherever it is unknown, never a warning: a deny list under a name agentmd does not read would
 * leave a run unrestricted while its author believes it restricted.
 */
export function listWord(key: string): ListWord | undefined {
  const norm = key.toLowerCase().replace(/[-_\s]/g, "");
  if (DENY.test(norm)) return "deny";
  if (ALLOW.test(norm)) return "allow";
  if (norm.includes("permission")) return "permissions";
  if (norm.includes("tools")) return "tools";
  return undefined;
}
