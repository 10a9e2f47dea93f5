import type { PromptTurn, RewindReport, RewindRequest } from "../../invocation/runner.js";
import type { Style } from "../io.js";
import { printable } from "./printable.js";

/** What a rewind puts back: `code` (the files), `conversation`, or `both`. */
export const REWIND_MODES = ["code", "conversation", "both"] as const;

/** `N code|conversation|both [--force]` (chat's `/rewind …`, `agentmd rewind …`) as a request, or why not. */
export function rewindWords(words: readonly string[]): RewindRequest | { error: string } {
  const force = words.includes("--force");
  const dryRun = words.includes("--dry-run");
  const [n, mode, ...extra] = words.filter((w) => w !== "--force" && w !== "--dry-run");
  const usage = "say it as: N code|conversation|both (N: the prompt to go back to just before)";
  if (n === undefined || !/^[0-9]+$/.test(n)) return { error: `a prompt's number is needed; ${usage}` };
  if (mode === undefined || !(REWIND_MODES as readonly string[]).includes(mode))
    return {
      error: `${mode === undefined ? "what to rewind is missing" : `'${mode}' is not code, conversation or both`}; ${usage}`,
    };
  if (extra.length > 0) return { error: `'${extra.join(" ")}' is not understood; ${usage}` };
  return {
    to: Number(n),
    code: mode !== "conversation",
    conversation: mode !== "code",
    ...(force && { force: true }),
    ...(dryRun && { dryRun: true }),
  };
}

/** The prompts a rewind can go back to, one a line, with the files each changed. */
export function turnsListing(
  turns: readonly PromptTurn[],
  shown: (file: string) => string,
  style: Style,
): string {
  if (turns.length === 0) return `${style.dim("no prompts in this session yet")}\n`;
  let out = "";
  for (const t of turns) {
    const prompt = printable(t.prompt.replace(/\s+/g, " ").trim(), false);
    out += `  ${style.bold(String(t.n).padStart(2))}  ${prompt.length > 60 ? `${prompt.slice(0, 57)}...` : prompt}\n`;
    const notes = [
      ...(t.files.length > 0 ? [`changed ${t.files.map((f) => printable(shown(f), false)).join(", ")}`] : []),
      ...(t.ranBash ? ["ran Bash (not covered)"] : []),
    ];
    if (notes.length > 0) out += `      ${style.dim(notes.join("; "))}\n`;
  }
  return out;
}

/** What a rewind did (or, dry, would do), as lines for a person. */
export function rewindReportText(
  report: RewindReport,
  request: RewindRequest,
  shown: (file: string) => string,
  style: Style,
): string {
  if (!report.ok) return `${style.yellow("cannot rewind:")} ${printable(report.message, false)}\n`;
  const would = request.dryRun ? "would be " : "";
  const at = report.turn ? `prompt ${report.turn.n}` : "that prompt";
  let out = "";
  const f = report.files;
  if (f) {
    const name = (x: string) => printable(shown(x), false);
    for (const x of f.restored) out += `  ${style.green("restored")} ${name(x)}\n`;
    for (const x of f.removed)
      out += `  ${style.green("removed")}  ${name(x)} ${style.dim("(created after the checkpoint)")}\n`;
    for (const s of f.skipped)
      out += `  ${style.yellow(s.reason === "conflict" ? "conflict" : "skipped")} ${name(s.file)}: ${printable(s.why, false)}\n`;
    const changed = f.restored.length + f.removed.length;
    out += `files ${would}put back as they were just before ${at}: ${changed} changed${f.skipped.length > 0 ? `, ${f.skipped.length} skipped` : ""}\n`;
    if (report.bashPrompts.length > 0)
      out += `${style.yellow("note:")} prompt${report.bashPrompts.length === 1 ? "" : "s"} ${report.bashPrompts.join(", ")} ran Bash: what Bash changed is not in the checkpoints and was not put back\n`;
  }
  if (report.conversation)
    out += `conversation ${request.dryRun ? "would go" : "goes"} on from just before ${at}${request.dryRun ? "" : " (the next prompt, or run --resume, continues from there)"}\n`;
  return out;
}
