import { didYouMean } from "../shared/did-you-mean.js";
import { listWord } from "./list-words.js";
import { CREDENTIAL_COMMANDS } from "./settings-credentials.js";

/** The top-level keys of a settings file: those agentmd reads, accepts, or takes for a near miss. */

/** Claude Code keys agentmd accepts and does not act on. */
export const IGNORED_SETTINGS_KEYS: ReadonlySet<string> = new Set(
  "$schema cleanupPeriodDays includeCoAuthoredBy outputStyle statusLine enableAllProjectMcpServers forceLoginMethod forceLoginOrgUUID otelHeadersHelper spinnerTipsEnabled alwaysThinkingEnabled companyAnnouncements theme autoUpdates feedbackSurveyState verbose preferredNotifChannel".split(
    " ",
  ),
);
/** The top-level keys agentmd reads. */
export const SETTINGS_KEYS: readonly string[] = [
  "permissions",
  "model",
  "env",
  "hooks",
  "disableAllHooks",
  "enabledMcpjsonServers",
  "disabledMcpjsonServers",
  "enabledPlugins",
  "extraKnownMarketplaces",
  ...CREDENTIAL_COMMANDS,
];
/** The keys of `permissions` agentmd reads. */
export const PERMISSION_KEYS: readonly string[] = [
  "allow",
  "deny",
  "ask",
  "defaultMode",
  "additionalDirectories",
  "disableBypassPermissionsMode",
];

/**
 * Claude Code settings whose names speak of lists or permissions that agentmd does not act on
 * (managed-policy and mode-prompt keys): a warning, as other unread keys, not a did-you-mean error.
 */
export const FOREIGN_POLICY_KEYS: ReadonlySet<string> = new Set(
  "allowedMcpServers deniedMcpServers allowManagedMcpServersOnly allowManagedHooksOnly allowManagedPermissionRulesOnly allowAllClaudeAiMcps allowClaudeInChromeWithManagedMcp allowedChannelPlugins allowedHttpHookUrls blockedMarketplaces skipDangerousModePermissionPrompt skipAutoPermissionPrompt".split(
    " ",
  ),
);

/**
 * The key an unknown top-level key was meant to be: a near miss of one agentmd reads, a key of
 * `permissions` written outside it (`"deny": […]`), or a name that speaks of rule lists.
 */
export function nearTopLevelKey(key: string): string | undefined {
  const near = didYouMean(key, SETTINGS_KEYS);
  if (near) return near;
  if (PERMISSION_KEYS.includes(key) || /^ask/i.test(key)) {
    return `permissions.${PERMISSION_KEYS.includes(key) ? key : "ask"}`;
  }
  const word = listWord(key);
  if (word === "deny" || word === "allow") return `permissions.${word}`;
  if (word === "permissions") return "permissions";
  if (word === "tools") return "permissions.allow' or 'permissions.deny";
  return undefined;
}
