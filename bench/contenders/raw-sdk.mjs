// The floor of bench/cli: a hand-written streaming loop on the raw SDK with a real Bash tool (each
// call `bash -c` in a child, the calls of one turn at once), as a fresh process.
import { spawn } from "node:child_process";
import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic({
  apiKey: process.env.ANTHROPIC_API_KEY,
  baseURL: process.env.ANTHROPIC_BASE_URL,
  maxRetries: 0,
  logLevel: "off",
});
const tools = [
  {
    name: "Bash",
    description: "Runs a command.",
    input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
];
const bash = (command) =>
  new Promise((resolve) => {
    let out = "";
    const child = spawn("bash", ["-c", command], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => resolve(`${out}[exit code ${code}]`));
  });
const messages = [{ role: "user", content: process.argv[2] ?? "go" }];
for (;;) {
  const stream = client.messages.stream({ model: "claude-sonnet-5-5", max_tokens: 1024, messages, tools });
  stream.on("text", (t) => process.stdout.write(t));
  const msg = await stream.finalMessage();
  messages.push({ role: "assistant", content: msg.content });
  const uses = msg.content.filter((b) => b.type === "tool_use");
  if (uses.length === 0) break;
  const results = await Promise.all(
    uses.map(async (u) => ({ type: "tool_result", tool_use_id: u.id, content: await bash(u.input.command) })),
  );
  messages.push({ role: "user", content: results });
}
process.stdout.write("\n");
