// `node stdio-server.mjs KIND [MARK_FILE]`: one test MCP server over stdio (see servers.mjs).
// KIND `fails-to-start` writes to stderr and exits before answering anything; `slow-start` runs
// and never answers (a server still starting).
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { buildServer, markStarted } from "./servers.mjs";

const [kind = "basic", mark] = process.argv.slice(2);
markStarted(mark);
if (kind === "fails-to-start") {
  process.stderr.write("fails-to-start: GITHUB_TOKEN is not valid\n");
  process.exit(1);
}
if (kind === "slow-start") {
  // Started, and never ready: it answers nothing until it is stopped.
  setInterval(() => {}, 60_000);
} else await buildServer(kind).connect(new StdioServerTransport());
