import { optionsHelp } from "../flags/option-table.js";
import { SESSION_FLAGS } from "../flags/session-flags.js";

/** What a user may type in the REPL besides a message: `/help` shows it, and so does `chat --help`. */
export const REPL_COMMANDS = `  /name args      run a command or skill (Tab completes the names)
  /help           this list             /tools     what the main agent may do
  /agents         the subagents         /skills    the skills and commands
  /model [NAME]   show or change the model (an id or alias: sonnet, opus, haiku)
  /cost           tokens and cost of this conversation so far
  /compact        summarise the conversation so far into one message, and go on
  /clear          start a new conversation
  /resume [ID]    list recent sessions, or continue one
  /rewind [N code|conversation|both]   put files and/or the conversation back to before prompt N
  /exit           leave (or Ctrl-D)`;

export const CHAT_HELP = `Usage: agentmd [chat] [PROMPT] [options]

A conversation with the main agent (agent.md). Type a message, or:
${REPL_COMMANDS}
A call that needs approval is asked about: press y (once), a (calls like it, for the
session) or n, then a reason (told to the model); or the arrows and Enter. Ctrl-C stops the
current turn; a second Ctrl-C leaves.
Each conversation is a session, written to .agentmd/sessions/<id>.jsonl; what you type is
kept in ~/.agentmd/history.

PROMPT is sent first. The options are those of 'agentmd run':

Options:
${optionsHelp(SESSION_FLAGS, 25)}

Example:
  agentmd chat --permission-mode acceptEdits "tidy the README"`;

/** The REPL's own commands, as completion offers them. */
export const BUILTIN = [
  "/help",
  "/tools",
  "/agents",
  "/skills",
  "/model",
  "/cost",
  "/compact",
  "/clear",
  "/resume",
  "/rewind",
  "/exit",
  "/quit",
];
