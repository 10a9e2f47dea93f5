import type { ApprovalPolicy } from "../../permissions/approval.js";
import { ruleTexts } from "../../permissions/chain.js";

/** The approval tier in words, and as data for --json. */
export function describeApproval(policy: ApprovalPolicy): {
  mode: string;
  preApproved: string[] | null;
  ask: string[];
  lines: string[];
} {
  const pre = policy.preApproved && ruleTexts(policy.preApproved);
  const ask = policy.ask ? ruleTexts(policy.ask) : [];
  const lines = [`approval: ${policy.mode} mode`];
  if (policy.mode === "bypassPermissions") lines.push("  every call the lists allow runs without asking");
  else if (policy.mode === "plan")
    lines.push("  only reading tools and read-only commands run; nothing is changed");
  else if (pre === null)
    lines.push("  agent.md's list is the approval: every call it allows runs without asking");
  else {
    lines.push(
      `  reading tools (Read, Glob, Grep, LS, TodoWrite, Task, Skill) run inside the working folders${policy.mode === "acceptEdits" ? ", and so do edits" : ""}`,
      `  pre-approved: ${pre.length > 0 ? pre.join(", ") : "nothing (permissions.allow, --allowedTools)"}`,
      "  anything else needs approval: chat asks a user; agentmd run denies it, saying how to allow it",
    );
  }
  if (ask.length > 0) lines.push(`  asks each time: ${ask.join(", ")}`);
  return { mode: policy.mode, preApproved: pre, ask, lines };
}
