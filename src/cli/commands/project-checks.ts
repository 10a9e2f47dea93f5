import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { budgetFitProblem } from "../../definitions/effort-thinking.js";
import { type ClaudeSettings, NO_SETTINGS } from "../../definitions/settings.js";
import { unknownModelProblem } from "../../definitions/settings-model.js";
import type { Definition, Diagnostic, Severity, SkillDefinition } from "../../definitions/types.js";
import { approvalPolicy, listApproves, readsOf } from "../../invocation/approvals.js";
import { quoteIntoCommand } from "../../invocation/arguments.js";
import { ATTACHMENT, COMMAND_BLOCK } from "../../invocation/body-syntax.js";
import { preloadRefusal } from "../../invocation/preload-refusal.js";
import { serverPrefix } from "../../mcp/server-spec.js";
import { type ApprovalPolicy, approve, sessionRuleFor } from "../../permissions/approval.js";
import { decide } from "../../permissions/decide.js";
import { type DefinitionListContext, definitionList } from "../../permissions/definition-list.js";
import { denialText } from "../../permissions/denial-text.js";
import { intersect, UNRESTRICTED } from "../../permissions/permission-list.js";
import { loadShellParser, NO_PARSER } from "../../permissions/shell/parse-shell.js";
import type { ShellParser } from "../../permissions/shell/shell-parser.js";
import type { DecideContext, PermissionList, ToolCall } from "../../permissions/types.js";
import { DEFAULT_MAX_TOKENS } from "../../shared/defaults.js";
import { didYouMean } from "../../shared/did-you-mean.js";
import { readTextOf } from "../../tools/read-text.js";
import { realPathOf } from "../../tools/real-path.js";

/** What `agentmd check` knows of a project beyond each file: what its definitions would meet at run time. */
export interface ProjectFacts {
  readonly definitions: readonly Definition[];
  readonly ctx: DefinitionListContext;
  readonly projectDir: string;
  /** The deny rules of the settings, joined to every hop (none: no settings). */
  readonly denied?: PermissionList;
  /** The settings, whose `permissions.allow` and mode approve calls (none: no settings). */
  readonly settings?: ClaudeSettings;
  /** The MCP servers a definition may reach (the project's, and a subagent's own). */
  readonly serversOf?: (def: Definition) => readonly string[];
}

/**
 * Problems a run would meet: a body's `!cmd` or `@file` its own list (∩ the main agent's) refuses
 * (an error: the invocation would fail every time), `Task(x)` / `Skill(x)` / `mcp__server__…`
 * entries that name nothing loaded, models agentmd does not know and thinking budgets that do not
 * fit under `maxTokens` (warnings).
 */
export async function projectChecks(facts: ProjectFacts): Promise<Diagnostic[]> {
  // The bash grammar is loaded only when a body has a `!cmd` to judge (a check of a project without
  // one starts faster).
  const shell = facts.definitions.some(hasBodyCommand) ? await loadShellParser() : NO_PARSER;
  return [
    ...mainApproval(facts.definitions),
    ...bodyCalls(facts, shell),
    ...unmatchedNames(facts),
    ...unknownModels(facts.definitions),
    ...thinkingBudgets(facts.definitions),
    ...preloads(facts),
  ];
}

function hasBodyCommand(def: Definition): boolean {
  if (def.surface !== "command" && def.surface !== "skill") return false;
  return !def.body.matchAll(COMMAND_BLOCK).next().done;
}

/**
 * A subagent's, skill's or command's thinking budget that does not fit under agent.md's `maxTokens`
 * (agent.md's own is judged where it is loaded): its runs would carry a raised `max_tokens`.
 */
function thinkingBudgets(definitions: readonly Definition[]): Diagnostic[] {
  const main = definitions.find((d) => d.surface === "main");
  const maxTokens = (main?.surface === "main" && main.maxTokens) || DEFAULT_MAX_TOKENS;
  const where = main?.surface === "main" && main.maxTokens ? "agent.md's maxTokens" : "the default maxTokens";
  return definitions.flatMap((def) => {
    if (def.surface === "main" || typeof def.thinking !== "number") return [];
    const problem = budgetFitProblem(def.thinking, maxTokens, where);
    return problem ? [diagnostic(def, keyLine(def, "thinking"), "warning", "thinking-budget", problem)] : [];
  });
}

/**
 * A subagent's `skills:` it could not preload (a name not defined, a skill only a user may invoke,
 * one its own list ∩ the main agent's does not allow): an error, since every run of it is refused.
 */
function preloads(facts: ProjectFacts): Diagnostic[] {
  const { definitions, ctx, projectDir } = facts;
  const main = definitions.find((d) => d.surface === "main");
  const top = intersect(facts.denied ?? UNRESTRICTED, main ? definitionList(main, ctx) : UNRESTRICTED);
  const skills = new Map(
    definitions.filter((d): d is SkillDefinition => d.surface === "skill").map((s) => [s.name, s]),
  );
  const out: Diagnostic[] = [];
  for (const def of definitions) {
    if (def.surface !== "agent" || !def.skills) continue;
    let list = intersect(top, definitionList(def, ctx));
    for (const name of def.skills) {
      const skill = preloadRefusal(skills, list, name, { specs: ctx.specs, cwd: projectDir });
      if (typeof skill === "string") {
        out.push(
          diagnostic(
            def,
            keyLine(def, "skills"),
            "error",
            "skill-not-preloadable",
            `${def.name} ${skill}; every run of it is refused`,
          ),
        );
      } else list = intersect(list, definitionList(skill, ctx));
    }
  }
  return out;
}

function diagnostic(
  def: Definition,
  at: { line: number; column: number },
  severity: Severity,
  code: string,
  message: string,
): Diagnostic {
  return { file: def.file, ...at, severity, code, message, surface: def.surface };
}

/** How a body's lines are judged: at the caller's level (the main agent's), with the approval tier. */
interface BodyJudge {
  readonly top: PermissionList;
  readonly policy: ApprovalPolicy;
  readonly judged: DecideContext & { readonly shell: ShellParser };
  readonly main: Definition | undefined;
}

/**
 * The `!cmd` and `@file` of command and skill bodies, judged as a user's `/name` would run them: at
 * the caller's level (the main agent's list and the settings' deny rules), pre-approved by the
 * command's own list, the settings' `permissions.allow` and the mode's read-only commands. What the
 * caller's list refuses is an error (every invocation fails); what would need approval is a warning
 * (`agentmd run` refuses it, chat asks), each saying what rule to add and where.
 */
function bodyCalls(facts: ProjectFacts, shell: ShellParser): Diagnostic[] {
  const { definitions, ctx, projectDir } = facts;
  const main = definitions.find((d) => d.surface === "main");
  const judge: BodyJudge = {
    top: intersect(facts.denied ?? UNRESTRICTED, main ? definitionList(main, ctx) : UNRESTRICTED),
    policy: approvalPolicy({
      settings: facts.settings ?? NO_SETTINGS,
      allow: [],
      mainApproves: listApproves(main),
      workingDirs: [projectDir],
      ctx: { ...ctx, projectDir },
    }),
    judged: { specs: ctx.specs, cwd: projectDir, realPath: realPathOf, readFile: readTextOf, shell },
    main,
  };
  const out: Diagnostic[] = [];
  for (const def of definitions) {
    if (def.surface !== "command" && def.surface !== "skill") continue;
    const body =
      def.surface === "skill" ? def.body.replace(/\$\{(?:CLAUDE_)?SKILL_DIR\}/g, def.dir) : def.body;
    const lineOf = (index: number) => ({
      line: def.bodyLine + (body.slice(0, index).match(/\n/g)?.length ?? 0),
      column: 1,
    });
    for (const m of body.matchAll(COMMAND_BLOCK)) {
      const written = (m[1] ?? m[2] ?? "").trim();
      const quoted = quoteIntoCommand(written, "ARG", shell);
      if (!quoted.ok) continue;
      const found = bodyCall(judge, def, { tool: "Bash", input: { command: quoted.command } }, facts);
      const said = `the command !\`${written}\` ${found?.message}`;
      if (found)
        out.push(
          found.severity === "error"
            ? diagnostic(def, lineOf(m.index), "error", "body-command-refused", said)
            : diagnostic(def, lineOf(m.index), "warning", "body-command-asks", said),
        );
    }
    for (const m of body.matchAll(ATTACHMENT)) {
      const rel = m[1] as string;
      const file = path.resolve(projectDir, rel.startsWith("~/") ? path.join(ctx.home, rel.slice(2)) : rel);
      if (!isFile(file)) continue;
      const found = bodyCall(judge, def, { tool: "Read", input: { file_path: file } }, facts);
      const said = `@${rel} ${found?.message.replace(/^would be refused/, "would not be attached")}`;
      if (found)
        out.push(
          found.severity === "error"
            ? diagnostic(def, lineOf(m.index), "error", "body-file-refused", said)
            : diagnostic(def, lineOf(m.index), "warning", "body-file-asks", said),
        );
    }
  }
  return out;
}

/** One body call: refused at the caller's level (an error), needing approval (a warning), or fine. */
function bodyCall(
  judge: BodyJudge,
  def: Definition,
  call: ToolCall,
  facts: ProjectFacts,
): { severity: Severity; message: string } | undefined {
  const { policy, judged, main } = judge;
  const name = `/${def.name}`;
  const rule = sessionRuleFor(call, judged.shell);
  const own = definitionList(def, facts.ctx);
  // The caller's list, with the invocable's own deny rules (as a run judges its lines).
  const top = intersect(judge.top, { rules: null, deny: own.deny });
  const d = decide(top, call, judged);
  if (d.kind === "denied") {
    const fix =
      d.reason === "denied-by-rule" || (d.reason === "cannot-judge" && d.why.kind === "deny-unsure")
        ? "a deny rule refuses it at every hop"
        : `add '${rule}' to the allowed-tools of ${main ? shownFile(main.file, facts.projectDir) : "agent.md"}`;
    return {
      severity: "error",
      message: `would be refused when ${name} runs, so every invocation would fail: ${denialText(d)} To let it run, ${fix}.`,
    };
  }
  const a = approve(
    policy,
    call,
    judged,
    own.rules !== null ? [own] : [],
    readsOf(judged.shell, judged, top),
  );
  if (a.kind !== "ask") return undefined;
  const where = `${shownFile(def.file, facts.projectDir)}:${keyLine(def, "allowed-tools").line}`;
  return {
    severity: "warning",
    message: `needs approval when ${name} runs (${a.reason}): chat asks each time, and agentmd run refuses every invocation. To let it run, add '${rule}' to the allowed-tools of ${where}, or to permissions.allow in .claude/settings.json.`,
  };
}

const shownFile = (file: string, root: string) => {
  const rel = path.relative(root, file);
  return rel.startsWith("..") || path.isAbsolute(rel) ? file : rel;
};

/**
 * An agent.md without an allow-list approves nothing: its calls follow the permission mode as
 * without agent.md. Said once, so that no one takes a clean check for approval.
 */
function mainApproval(definitions: readonly Definition[]): Diagnostic[] {
  const main = definitions.find((d) => d.surface === "main");
  if (!main || listApproves(main)) return [];
  return [
    diagnostic(
      main,
      { line: 1, column: 1 },
      "info",
      "approves-nothing",
      "agent.md has no allowed-tools, so it approves nothing: calls follow the permission mode as without agent.md (reads and read-only commands in the working folders run; anything else runs when permissions.allow in .claude/settings.json or --allowedTools names it, is asked in chat, and is refused by agentmd run). Write allowed-tools to approve what this agent may do.",
    ),
  ];
}

/** `Task(x)`, `Skill(x)` and `mcp__server__…` entries that name no subagent, skill or server. */
function unmatchedNames(facts: ProjectFacts): Diagnostic[] {
  const { definitions } = facts;
  const names = (surfaces: string[]) =>
    definitions.filter((d) => surfaces.includes(d.surface)).map((d) => d.name);
  const agents = names(["agent"]);
  const invocables = names(["skill", "command"]);
  const out: Diagnostic[] = [];
  for (const def of definitions) {
    for (const e of [...(def.allowedTools?.entries ?? []), ...(def.disallowedTools?.entries ?? [])]) {
      const at = { line: e.at.line, column: e.at.column };
      const literal = e.pattern !== undefined && !e.pattern.includes("*") ? e.pattern.trim() : undefined;
      const missing = (kind: string, loaded: string[]) =>
        diagnostic(
          def,
          at,
          "warning",
          "names-nothing-loaded",
          `'${e.raw}' names no ${kind} that is loaded${hint(literal ?? "", loaded)}; the entry gives nothing`,
        );
      if ((e.name === "Task" || e.name === "Agent") && literal !== undefined && !agents.includes(literal))
        out.push(missing("subagent", agents));
      else if (e.name === "Skill" && literal !== undefined && !invocables.includes(literal))
        out.push(missing("skill", invocables));
      else if (e.name.startsWith("mcp__") && facts.serversOf) {
        const servers = facts.serversOf(def);
        const reaches = servers.some((s) => e.name === `mcp__${s}` || e.name.startsWith(serverPrefix(s)));
        if (!reaches) out.push(missing("MCP server (.mcp.json, mcpServers)", [...servers]));
      }
    }
  }
  return out;
}

const hint = (name: string, loaded: readonly string[]) => {
  const near = name ? didYouMean(name, loaded) : undefined;
  if (near) return ` (did you mean '${near}'?)`;
  return loaded.length > 0
    ? ` (loaded: ${loaded.slice(0, 10).join(", ")}${loaded.length > 10 ? ", …" : ""})`
    : "";
};

/** A model that is neither an alias (`sonnet`, `opus`, `haiku`, `inherit`) nor a Claude model id. */
function unknownModels(definitions: readonly Definition[]): Diagnostic[] {
  return definitions.flatMap((def) => {
    const problem = typeof def.model === "string" ? unknownModelProblem(def.model) : undefined;
    return problem ? [diagnostic(def, keyLine(def, "model"), "warning", "unknown-model", problem)] : [];
  });
}

/** Where a frontmatter key is written (line 1 when the file cannot be read again). */
function keyLine(def: Definition, key: string): { line: number; column: number } {
  try {
    const lines = readFileSync(def.file, "utf8").split(/\r?\n/).slice(0, def.bodyLine);
    const i = lines.findIndex((l) => new RegExp(`^${key}\\s*:`).test(l));
    return i === -1 ? { line: 1, column: 1 } : { line: i + 1, column: 1 };
  } catch {
    return { line: 1, column: 1 };
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
