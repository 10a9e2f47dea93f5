import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { HELP_OPTION, type OptionTable, optionsHelp } from "../flags/option-table.js";
import type { CliIo } from "../io.js";

/** `init`'s options: its parser and its help's Options lines. */
export const INIT_OPTIONS = { ...HELP_OPTION } as const satisfies OptionTable;

export const INIT_HELP = `Usage: agentmd init [DIR]

Creates a starter project in DIR (default: the current folder): agent.md, a read-only
subagent, a skill with a resource file, and a command, and adds .agentmd/ (where sessions
are written) to .gitignore. Never overwrites a file that exists.

Options:
${optionsHelp(INIT_OPTIONS, 14)}

Example:
  agentmd init my-agent && cd my-agent && agentmd check`;

const FILES: Record<string, string> = {
  "agent.md": `---
name: assistant
description: The main agent of this project.
model: sonnet
allowed-tools: Read, Glob, Grep, Bash(git status), Bash(git log:*), Bash(git diff:*), Task(reviewer), Skill
disallowed-tools: Bash(git push:*)
maxIterations: 30
---
You are the assistant of this project. Read the code before you answer, quote file paths and
line numbers, and hand reviews to the \`reviewer\` subagent.
`,
  "agents/reviewer.md": `---
name: reviewer
description: Reviews a change read-only and reports problems with file and line.
tools: Read, Grep, Glob, Bash(git diff:*)
---
You are a careful reviewer. You can read files and run \`git diff\`; you cannot change anything.
Report each problem with its file and line, most serious first.
`,
  "skills/summarize/SKILL.md": `---
name: summarize
description: Summarizes a file or folder for a newcomer. Use when asked what something is for.
allowed-tools: Read, Glob, Grep
argument-hint: "<path>"
---
Summarize \`$ARGUMENTS\` for a newcomer, following the outline in \`\${SKILL_DIR}/outline.md\`.
`,
  "skills/summarize/outline.md": `# Outline
1. What it is for, in one sentence.
2. How it is used.
3. What to watch out for.
`,
  "commands/hello.md": `---
description: Says hello and lists what this project's agent may do.
---
Say hello to $ARGUMENTS and list, in one short paragraph, what you can and cannot do here.
`,
};

/** Said when agent.md joins a `.claude/` project: it changes what every run of the project may do. */
const CEILING_NOTE = `Note: this folder's .claude/ project had no agent.md. Until now its runs worked as Claude Code's
default mode does (any tool, the settings' rules and your approvals deciding each call). With
agent.md, its allowed-tools list is the ceiling of every run, subagent, skill and command, and its
approval: a call it allows runs without asking, a tool it does not list is no longer offered, and
permissions.allow or --allowedTools never widen it. Edit allowed-tools in agent.md to fit, or
delete agent.md to go back.
`;

/** Runs `agentmd init`; returns the exit code. */
export function runInit(dirArg: string | undefined, io: CliIo): number {
  const dir = path.resolve(io.cwd, dirArg ?? ".");
  const claudeProject = existsSync(path.join(dir, ".claude")) && !existsSync(path.join(dir, "agent.md"));
  let created = 0;
  let failed = 0;
  for (const [rel, content] of Object.entries(FILES)) {
    const file = path.join(dir, rel);
    if (existsSync(file)) {
      io.stdout.write(`  exists, left as is: ${rel}\n`);
      continue;
    }
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      // "wx": never overwrite, even what appeared since the check (or a dangling symlink).
      writeFileSync(file, content, { flag: "wx" });
    } catch (e) {
      io.stderr.write(
        `  cannot create ${rel}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}; left as is\n`,
      );
      failed++;
      continue;
    }
    io.stdout.write(`  created ${rel}\n`);
    created++;
  }
  failed += ignoreSessions(dir, io);
  if (failed > 0) {
    io.stderr.write(`agentmd init: ${failed} file(s) could not be created in ${dir}\n`);
    return 1;
  }
  if (claudeProject && existsSync(path.join(dir, "agent.md"))) io.stdout.write(CEILING_NOTE);
  io.stdout.write(
    created > 0
      ? `A starter project is in ${dir}. Next: 'agentmd check' to validate it, 'agentmd' to talk to it.\n`
      : `Nothing to create: every starter file exists in ${dir}.\n`,
  );
  return 0;
}

/** `.agentmd/` (sessions, locks) in `.gitignore`: added once, the rest of the file kept as it is. */
function ignoreSessions(dir: string, io: CliIo): number {
  const file = path.join(dir, ".gitignore");
  let text = "";
  try {
    text = existsSync(file) ? readFileSync(file, "utf8") : "";
  } catch (e) {
    io.stderr.write(
      `  cannot read .gitignore: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`,
    );
    return 1;
  }
  if (text.split(/\r?\n/).some((l) => /^\/?\.agentmd\/?$/.test(l.trim()))) return 0;
  try {
    appendFileSync(file, `${text === "" || text.endsWith("\n") ? "" : "\n"}.agentmd/\n`);
  } catch (e) {
    io.stderr.write(
      `  cannot write .gitignore: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`,
    );
    return 1;
  }
  io.stdout.write(`  ${text === "" ? "created .gitignore with" : "added to .gitignore:"} .agentmd/\n`);
  return 0;
}
