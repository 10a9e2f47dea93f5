import path from "node:path";
import type { DiagnosticSink } from "./diagnostics.js";
import type { JsonFile } from "./json-file.js";

/** The settings keys whose value is a command that yields or renews the model's credential. */
export const CREDENTIAL_COMMANDS = ["apiKeyHelper", "awsAuthRefresh", "awsCredentialExport"] as const;

/** Each credential command set, with the file that set it (`source`, as a user reads it). */
export type CredentialCommands = {
  readonly [K in (typeof CREDENTIAL_COMMANDS)[number]]?: {
    readonly command: string;
    readonly source: string;
  };
};

/** A file's credential commands: each a non-empty string (else an error at its line). */
export function commandsOf(
  value: Record<string, unknown>,
  json: JsonFile,
  sink: DiagnosticSink,
  root: string,
): CredentialCommands | undefined {
  const out: Record<string, { command: string; source: string }> = {};
  for (const key of CREDENTIAL_COMMANDS) {
    const v = value[key];
    if (v === undefined) continue;
    if (typeof v !== "string" || v.trim() === "") {
      sink.at(json.locate([key]))(
        "error",
        "settings-type",
        `'${key}' must be a command (a non-empty string)`,
      );
      continue;
    }
    out[key] = { command: v, source: path.relative(root, sink.file) || sink.file };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
