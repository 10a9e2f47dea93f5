import { MODEL_ALIASES } from "../shared/defaults.js";
import { didYouMean } from "../shared/did-you-mean.js";
import type { Severity } from "./types.js";

type At = (severity: Severity, code: string, message: string) => void;

/**
 * The settings' `model`: the model of every run whose agent.md names none (`--model` and
 * `ANTHROPIC_MODEL` win over both). Claude Code's `default` is no choice (agentmd's default). A
 * name that is neither an alias nor a model id is a warning (the API will refuse it), as agent.md's.
 */
export function readSettingsModel(value: unknown, at: At): string | undefined {
  if (value === undefined || value === "default") return undefined;
  if (typeof value !== "string" || value.trim() === "") {
    at(
      "warning",
      "settings-type",
      `'model' must be a model alias or id, got ${JSON.stringify(value)}; it is ignored`,
    );
    return undefined;
  }
  const problem = unknownModelProblem(value);
  if (problem) at("warning", "unknown-model", problem);
  return value;
}

/**
 * Why agentmd does not know `model` (neither an alias, `inherit`, a Claude model id nor a
 * provider's spelling of one), or undefined.
 */
export function unknownModelProblem(model: string): string | undefined {
  const aliases = [...Object.keys(MODEL_ALIASES), "inherit"];
  if (aliases.includes(model) || /^claude-[a-z0-9][a-z0-9.-]*$/.test(model)) return undefined;
  if (/^[\w.-]*[./:@][\w./:@-]*claude[\w./:@-]*$/i.test(model)) return undefined;
  const near = didYouMean(model.toLowerCase(), aliases);
  return `model '${model}' is neither an alias (${aliases.join(", ")}) nor a Claude model id${near ? `; did you mean '${near}'?` : ""}; the API will refuse it`;
}
