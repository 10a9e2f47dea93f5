import { PERMISSION_MODES, type PermissionMode } from "../../definitions/settings.js";
import { type PermissionOptions, ruleEntries } from "../../invocation/approvals.js";
import { didYouMean } from "../../shared/did-you-mean.js";
import { ConfigError } from "../../shared/errors.js";
import type { OptionTable } from "./option-table.js";
import { UsageError } from "./usage-error.js";

/** The approval flags of `run`, `chat` and `tools`, spelled as Claude Code spells them (and kebab-case). */
export const PERMISSION_FLAGS = {
  "permission-mode": {
    type: "string",
    value: "M",
    help: [
      "default, acceptEdits, plan or bypassPermissions (over the",
      "settings' permissions.defaultMode); auto is taken as default",
    ],
  },
  allowedTools: {
    type: "string",
    multiple: true,
    value: "R",
    help: [
      "pre-approve calls, e.g. 'Bash(npm test:*) Edit' (never beyond",
      "agent.md's list); also --allowed-tools",
    ],
  },
  "allowed-tools": { type: "string", multiple: true, value: "R", aliasOf: "allowedTools" },
  disallowedTools: {
    type: "string",
    multiple: true,
    value: "R",
    help: ["deny calls at every hop, e.g. 'Bash(git push:*)'; also", "--disallowed-tools"],
  },
  "disallowed-tools": { type: "string", multiple: true, value: "R", aliasOf: "disallowedTools" },
} as const satisfies OptionTable;

/** Claude Code's mode in which a classifier approves calls. agentmd has none: it is `default`. */
export const AUTO_MODE = "auto";

/**
 * `auto` as `default`, said once on stderr: it never widens anything (what the lists and settings
 * do not approve is asked, or refused with no one to ask).
 */
export function autoAsDefault(stderr: { write(s: string): unknown }): "default" {
  stderr.write(
    "agentmd: permission mode 'auto' is taken as 'default': no classifier approves calls here; what the lists and settings do not approve is asked, or refused\n",
  );
  return "default";
}

type Values = {
  allowedTools?: string[];
  "allowed-tools"?: string[];
  disallowedTools?: string[];
  "disallowed-tools"?: string[];
  "permission-mode"?: string;
};

/** The flags as runner options; an unknown mode is a usage error with a did-you-mean. */
export function permissionFlags(values: Values): Omit<PermissionOptions, "approve"> {
  const allow = [...(values.allowedTools ?? []), ...(values["allowed-tools"] ?? [])];
  const deny = [...(values.disallowedTools ?? []), ...(values["disallowed-tools"] ?? [])];
  const mode = values["permission-mode"];
  if (mode !== undefined && !(PERMISSION_MODES as readonly string[]).includes(mode)) {
    const near = didYouMean(mode, PERMISSION_MODES);
    throw new UsageError(
      `--permission-mode must be one of ${PERMISSION_MODES.join(", ")}, not '${mode}'${near ? ` (did you mean '${near}'?)` : ""}`,
    );
  }
  // A rule that cannot be read is a usage error here (exit 2), before anything starts.
  for (const [flag, rules] of [
    ["--allowedTools", allow],
    ["--disallowedTools", deny],
  ] as const)
    try {
      ruleEntries(rules, flag);
    } catch (e) {
      if (e instanceof ConfigError) throw new UsageError(e.message);
      throw e;
    }
  return {
    ...(allow.length > 0 && { allow }),
    ...(deny.length > 0 && { deny }),
    ...(mode !== undefined && { mode: mode as PermissionMode }),
  };
}
