// What `agentmd --version` and `agentmd --help` print. The launcher (bin/agentmd.js) asks this
// module first and loads nothing else when it answers: it imports nothing but the version.
import { VERSION } from "./version.js";

export const HELP = `agentmd — run LLM agents defined in markdown, with allow-lists enforced at every hop.

Usage: agentmd [command] [options]
       agentmd -p "PROMPT" [options]     one run, its answer on stdout (as 'run -p')
       agentmd -c | -r ID                continue the newest session, or session ID

Commands:
  chat               talk to the main agent (the default with no command)
  run [PROMPT]       run the main agent once on PROMPT, or '/name args' for a command or skill
  check [PATH…]      load and validate agent.md, agents/, skills/ and commands/
  tools              show what a run may do at the end of a chain of hops, or judge one call
  audit [PATH]       what every entry point can do along every chain; --diff REV for a review
  mcp list           list the MCP servers, their status and their tools
  mcp login NAME     sign in to an HTTP MCP server (OAuth); mcp logout NAME forgets it
  init [DIR]         create a starter project (never overwrites)
  sessions [show ID] list the project's sessions, or show one (rm ID: remove one)
  rewind [N code|conversation|both]   undo an agent's edits: files and/or conversation
                     as just before prompt N of a session (no N: its prompts)
  plugin install|list|marketplace add   Claude Code plugins (docs/plugins.md)
  trust [DIR]        review the project's code (hooks, MCP servers, tools) and trust it to run
  batch FILE.jsonl   many runs, one a line of FILE: here, or on workers with --redis URL
  worker             take runs from a queue (--redis URL) and run them
  enqueue FILE.jsonl put a batch's runs on a queue (--redis URL) for workers
  view               a local web page of the sessions (and, with --redis URL, the batches)
  acp                an editor's agent: the Agent Client Protocol on stdin/stdout (docs/editors.md)
  auth status        which credential the model requests would use (--json: Claude Code's shape)

Run 'agentmd <command> --help' for a command's options; 'agentmd --version' for the version.

Example:
  agentmd -p --output-format json --allowedTools 'Bash(npm test:*)' "run the tests"`;

/**
 * The text a first word that only asks for the version or the help prints, ending in a line break;
 * undefined for any other command line (`check --help` is the command's own help).
 */
export function quickAnswer(argv: readonly string[]): string | undefined {
  switch (argv[0]) {
    case "-h":
    case "--help":
    case "help":
      return `${HELP}\n`;
    case "-v":
    case "--version":
      return `${VERSION} (agentmd-cli)\n`;
    default:
      return undefined;
  }
}
