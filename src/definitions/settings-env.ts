import path from "node:path";
import { didYouMean } from "../shared/did-you-mean.js";
import { MODEL_VARIABLES } from "../shared/model-variables.js";
import { startUpVariable } from "../shared/start-up-variables.js";
import type { DiagnosticSink } from "./diagnostics.js";
import type { JsonFile } from "./json-file.js";

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * A settings file's `env`. The user's own file (`~/.claude/settings.json`) may set any variable, as
 * Claude Code lets it. A project's file is input whoever wrote the repository chose: a variable
 * that changes what an allowed command does (`BASH_ENV`, `GIT_CONFIG_*`, `LD_PRELOAD`, `HOME`,
 * `PATH`, …) is an error naming the key and the file, never applied; the run does not start.
 * Contract: never throws; the variables kept are those that are strings and not refused.
 */
export function checkSettingsEnv(
  value: unknown,
  json: JsonFile,
  sink: DiagnosticSink,
  from: { readonly base: "project" | "home"; readonly root: string },
): Record<string, string> {
  const env: Record<string, string> = {};
  if (value === undefined) return env;
  const at = (keys: (string | number)[]) => sink.at(json.locate(keys));
  if (!isRecord(value)) {
    at(["env"])("error", "settings-type", "'env' must be an object of strings");
    return env;
  }
  const shown = path.relative(from.root, sink.file) || sink.file;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "string") {
      at(["env", k])("error", "settings-type", `'env.${k}' must be a string`);
      continue;
    }
    const near = MODEL_VARIABLES.includes(k) ? undefined : didYouMean(k, MODEL_VARIABLES);
    if (near !== undefined)
      sink.at(json.locateKey(["env", k]))(
        "warning",
        "settings-env-name",
        `'env.${k}' is not a variable agentmd reads; did you mean '${near}'?`,
      );
    const why = from.base === "project" ? startUpVariable(k) : undefined;
    if (why === undefined) {
      env[k] = v;
      continue;
    }
    sink.at(json.locateKey(["env", k]))(
      "error",
      "settings-env",
      `'env.${k}' in ${shown} is refused: ${why}, so it would change what every allowed command does. A project's files may not set it; set it in ~/.claude/settings.json or in the environment agentmd starts in`,
    );
  }
  return env;
}
