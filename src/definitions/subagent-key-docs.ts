import type { KeyDoc } from "./key-doc.js";

/** What Claude Code's subagent keys do in agentmd (and agent.md's `initialPrompt`): part of KEY_DOCS. */
export const SUBAGENT_KEY_DOCS: Readonly<Record<string, KeyDoc>> = {
  permissionMode: {
    title: "Permission mode",
    type: "default, acceptEdits, plan or bypassPermissions",
    description:
      "The approval mode of this subagent's runs, only ever narrower than its caller's: the modes are ordered plan < default < acceptEdits < bypassPermissions, and a run approves in the narrowest of the session's mode (`--permission-mode`, `permissions.defaultMode`) and every hop's above it. `plan` under a default caller is plan (no writes); `bypassPermissions` under a default caller stays default. Its lists still bound every call.",
    default: "its caller's",
  },
  skills: {
    title: "Preloaded skills",
    type: "skill name or list of names",
    description:
      "Skills whose content is in the subagent's system prompt from its first request, as Claude Code preloads them: each is loaded as an inline Skill call loads one (its body made ready, `!cmd` and `@file` through the run's own calls; the run's list narrowed to its list ∩ the skill's; its hooks and sandbox joined). Only a skill the subagent could invoke may be preloaded: its list ∩ its caller's must allow `Skill(name)`, and the skill must not be `disable-model-invocation`. An unknown name (with did-you-mean) or one it may not invoke is an error in `agentmd check` and refuses the run; it is never skipped.",
    default: "none",
  },
  initialPrompt: {
    title: "Initial prompt",
    description:
      "Text that comes first, as Claude Code's initialPrompt: in the same user turn, before the prompt the subagent is given (a Task call's `prompt`, or `agentmd -p --agent NAME`'s prompt, or a batch item's with `agent`).",
    on: {
      main: {
        description:
          "The first user turn of a new session: `agentmd chat` submits it at the start (before a PROMPT given on the command line, in the same turn); `agentmd -p` and a batch item put it before their prompt. A resumed session does not get it again. A `/name` line is not prefixed.",
      },
    },
    default: "none",
  },
  background: {
    title: "Background subagent",
    type: "boolean",
    description:
      "`true`: the Task call returns at once with a task id (`task-1`) and the caller goes on; when the subagent ends, its answer (or why it failed) is added to the caller's conversation as a `<task-notification>` user turn before the caller's next request. A caller that would end while one is still running waits for it and goes on with its answer; a caller that ends another way (a turn or budget limit, an error, Ctrl-C) stops it and waits for it to end, with a warning naming it. Budgets, lists and modes hold as for any subagent.",
    default: "false",
  },
  isolation: {
    title: "Isolation",
    type: "worktree",
    description:
      "`worktree`: each run started by a Task call works in a temporary git worktree (a new branch `agentmd/NAME-ID` from HEAD, in the system's temporary folder), its working folder and its only writable folder: its list is intersected with one that keeps Edit and every tool Edit's rules bind (Write, MultiEdit, NotebookEdit, Bash's redirections) inside it, so under the sandbox its commands can write only there too. Parallel runs each get their own. Path rules keep naming the paths they name (a caller's `Write(src/**)` is the main tree's `src/`, which the worktree is not). After the run the worktree is removed with its branch when nothing changed; otherwise it is kept, and the Task result ends by naming its path and branch. Outside a git repository (or one with no commit) the Task call fails with that reason: it never runs in place. As the session's own agent (`--agent NAME`) it runs in the folder it is started in.",
    default: "none",
  },
};
