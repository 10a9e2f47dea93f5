import path from "node:path";
import { readJsonFile } from "./json-file.js";
import { KNOWN_MARKETPLACES, knownMarketplaces, marketplaceDir } from "./marketplace.js";
import { segmentProblem } from "./plugin-segment.js";
import { PROJECT_SETTINGS, USER_SETTINGS } from "./project-inputs.js";
import type { Diagnostic } from "./types.js";

/**
 * The local marketplaces a project sees, and whose each is. The user's — added with `agentmd plugin
 * marketplace add` (`known_marketplaces.json`) or named in `~/.claude/settings.json`'s
 * `extraKnownMarketplaces` (which wins over an added one) — are never shadowed by a project's: a
 * marketplace the repository's settings declare under a name the user already declared is not
 * used, and the clash is reported (a warning at the project's settings), so a cloned repository
 * cannot swap the code behind a plugin the user enabled.
 */

export type SettingsScope = "user" | "project" | "local";

export interface MarketplaceSource {
  readonly name: string;
  /** The marketplace's folder, absolute. */
  readonly dir: string;
  /** `user`: added by the user or in their settings; `project`: declared by the repository's settings. */
  readonly owner: "user" | "project";
  /** Where it is declared: `known_marketplaces.json`, or the settings file naming it. */
  readonly file: string;
}

/** The settings files, least specific first, with their scopes. */
export function scopedSettings(
  root: string,
  userDir: string | undefined,
): { file: string; scope: SettingsScope }[] {
  return [
    ...(userDir && userDir !== path.join(root, ".claude")
      ? [{ file: path.join(userDir, USER_SETTINGS), scope: "user" as const }]
      : []),
    { file: path.join(root, PROJECT_SETTINGS[0]), scope: "project" },
    { file: path.join(root, PROJECT_SETTINGS[1]), scope: "local" },
  ];
}

/** A settings file's JSON object, or undefined when it is missing or not one. */
export function settingsValue(file: string): Record<string, unknown> | undefined {
  const read = readJsonFile(file);
  return read.kind === "ok" && isRecord(read.json.value) ? read.json.value : undefined;
}

/** The marketplaces of the module's comment, by name, and the clashes and bad names found. */
export function marketplaceSources(
  root: string,
  userDir: string | undefined,
  pluginsDir: string,
): { markets: Map<string, MarketplaceSource>; diagnostics: Diagnostic[] } {
  const markets = new Map<string, MarketplaceSource>();
  const diagnostics: Diagnostic[] = [];
  const known = path.join(pluginsDir, KNOWN_MARKETPLACES);
  for (const [name, dir] of knownMarketplaces(pluginsDir))
    if (!segmentProblem("marketplace name", name))
      markets.set(name, { name, dir, owner: "user", file: known });
  for (const { file, scope } of scopedSettings(root, userDir)) {
    const read = readJsonFile(file);
    if (read.kind !== "ok" || !isRecord(read.json.value)) continue;
    const extra = read.json.value.extraKnownMarketplaces;
    if (!isRecord(extra)) continue;
    const base = scope === "user" ? path.dirname(userDir ?? root) : root;
    const owner = scope === "user" ? "user" : "project";
    for (const [name, value] of Object.entries(extra)) {
      const dir = marketplaceDir(value, base);
      if (!dir) continue;
      const warn = (code: string, message: string) => {
        const at = read.json.locateKey(["extraKnownMarketplaces", name]);
        diagnostics.push({ file, ...at, severity: "warning", code, message });
      };
      const bad = segmentProblem("marketplace name", name);
      if (bad) {
        warn("marketplace-name", `${bad}; this marketplace is not used`);
        continue;
      }
      const held = markets.get(name);
      if (owner === "project" && held?.owner === "user") {
        if (path.resolve(held.dir) !== path.resolve(dir))
          warn(
            "marketplace-shadowed",
            `the project's marketplace '${name}' (${dir}) is not used: you declared a marketplace of that name (${held.file}: ${held.dir}), and yours wins, so '…@${name}' plugins come from yours`,
          );
        continue;
      }
      markets.set(name, { name, dir, owner, file });
    }
  }
  return { markets, diagnostics };
}

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
