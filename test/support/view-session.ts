import type { ScriptStep } from "./fake-anthropic.js";

/**
 * A multi-agent project and the model's side of one session of it, for the tests (and screenshots)
 * of `agentmd view`: the main agent starts a subagent with Task (which runs a Bash command), has a
 * `git push` denied by agent.md's deny list, reads a page whose text is markup (it must stay text),
 * and runs a forked skill.
 */
export const XSS = `<script>document.title="owned"</script><img src=x onerror="document.title='owned'">`;

export const VIEW_PROJECT: Record<string, string> = {
  "agent.md": [
    "---",
    "allowed-tools: Read, Bash(echo:*), Task(helper), Skill(notes)",
    "disallowed-tools: Bash(git push:*)",
    "---",
    "You coordinate the work.",
    "",
  ].join("\n"),
  "agents/helper.md": "---\nname: helper\ndescription: Helps.\ntools: Read, Bash(echo:*)\n---\nHelp.\n",
  "skills/notes/SKILL.md": "---\nname: notes\ndescription: Writes notes.\ncontext: fork\n---\nWrite notes.\n",
  "page.html": `${XSS}\n`,
};

const usage = { input_tokens: 1200, output_tokens: 300 };

const say = (text: string): ScriptStep => ({ kind: "message", usage, content: [{ type: "text", text }] });

const uses = (...calls: { name: string; input: unknown; id: string }[]): ScriptStep => ({
  kind: "message",
  usage,
  content: calls.map((c) => ({ type: "tool_use", ...c })),
});

/** The responses of that session, in the order its runs ask for them. */
export function viewSessionScript(): ScriptStep[] {
  return [
    uses({
      name: "Task",
      id: "toolu_task",
      input: { subagent_type: "helper", description: "check", prompt: "say hello" },
    }),
    uses({ name: "Bash", id: "toolu_echo", input: { command: "echo hello from the helper" } }),
    say("The helper said hello."),
    uses(
      { name: "Bash", id: "toolu_push", input: { command: "git push origin main" } },
      { name: "Read", id: "toolu_read", input: { file_path: "page.html" } },
    ),
    uses({ name: "Skill", id: "toolu_skill", input: { skill: "notes" } }),
    say("Notes written."),
    say("All done: the push was denied, the page read."),
  ];
}

export const VIEW_PROMPT = "coordinate the release";
