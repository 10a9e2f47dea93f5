import type { HooksSetting } from "./types.js";

/** Who a settings or plugin hook belongs to: the user (`~/.claude`) or the project folder. */
export type HookOwner = "user" | "project";

/** What of the settings `hooksAreOff` reads (`ClaudeSettings.disableAllHooks`). */
export interface HooksSwitch {
  readonly disableAllHooks?: HookOwner;
}

/**
 * Whether `disableAllHooks` turns off the hooks `owner` gave: the user's own file turns off all of
 * them; a project's file (`.claude/settings.json`, `.claude/settings.local.json`, which a cloned
 * repository can carry) only the project's, never the user's. Pure.
 */
export function hooksAreOff(s: HooksSwitch, owner: HookOwner): boolean {
  return s.disableAllHooks === "user" || (s.disableAllHooks === "project" && owner === "project");
}

/** Two files' switches joined, the more general file first: the user's own wins, else the latest. */
export function joinedSwitch(a: HooksSwitch, b: HooksSwitch): HooksSwitch {
  const off = a.disableAllHooks === "user" ? "user" : (b.disableAllHooks ?? a.disableAllHooks);
  return off ? { disableAllHooks: off } : {};
}

/** The settings' hooks that run: those of the owners `disableAllHooks` leaves on. Pure. */
export function settingsHooks(s: HooksSwitch & { readonly hooks?: HooksSetting }): HooksSetting | undefined {
  if (s.disableAllHooks === undefined || s.hooks === undefined) return s.hooks;
  return Object.fromEntries(
    Object.entries(s.hooks).map(([e, list]) => [
      e,
      (list ?? []).filter((h) => !hooksAreOff(s, h.origin === "user" ? "user" : "project")),
    ]),
  );
}
