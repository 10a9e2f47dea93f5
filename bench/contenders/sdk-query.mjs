// An Agent SDK program, the same for every contender: only the executable differs (BENCH_EXE).
import { query } from "@anthropic-ai/claude-agent-sdk";

let answer = "";
for await (const m of query({
  prompt: process.argv[2] ?? "go",
  options: {
    pathToClaudeCodeExecutable: process.env.BENCH_EXE,
    cwd: process.cwd(),
    allowedTools: ["Bash"],
    maxTurns: 100,
  },
})) {
  if (m.type === "result") answer = m.subtype === "success" ? m.result : JSON.stringify(m);
}
console.log(answer);
