/** Claude Code's permission modes (`permissions.defaultMode`, `--permission-mode`, a subagent's `permissionMode`). */
export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];
