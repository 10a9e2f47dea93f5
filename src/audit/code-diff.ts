import { PERMISSION_MODES } from "../definitions/settings.js";
import type { CodeInput } from "./code-inputs.js";

/** One change to what a run depends on beyond its lists, that widens what the project can do. */
export interface CodeGain {
  readonly input: CodeInput;
  /** `added`/`changed`: as it is now; `removed`: as it was at the revision (a hook that no longer guards). */
  readonly change: "added" | "changed" | "removed";
}

const MODE_RANK: Readonly<Record<string, number>> = {
  plan: 0,
  default: 1,
  acceptEdits: 2,
  bypassPermissions: 3,
};

/**
 * The changes from `prior` to `next` that widen: any added or changed hook, MCP server, tool module,
 * settings env key, baseUrl or `disableAllHooks`; a removed hook (a guard gone); an added working
 * folder; a permission mode that asks less; a sandbox turned off or allowed more hosts. What only
 * narrows (a server or a module removed, a stricter mode) is no gain. Pure.
 */
export function diffCodeInputs(prior: readonly CodeInput[], next: readonly CodeInput[]): CodeGain[] {
  const id = (c: CodeInput) => `${c.kind}\0${c.key}`;
  const before = new Map(prior.map((c) => [id(c), c]));
  const now = new Set(next.map(id));
  const gains: CodeGain[] = [];
  for (const c of next) {
    const was = before.get(id(c));
    if (!was) {
      if (gainsWhenAdded(c)) gains.push({ input: c, change: "added" });
    } else if (was.value !== c.value && widens(was, c)) gains.push({ input: c, change: "changed" });
  }
  for (const c of prior)
    if (!now.has(id(c)) && (c.kind === "hook" || c.kind === "sandbox"))
      gains.push({ input: c, change: "removed" });
  return gains;
}

function gainsWhenAdded(c: CodeInput): boolean {
  if (c.kind === "permission-mode") return rank(c.value) > rank("default");
  // A sandbox turned on narrows.
  return c.kind !== "sandbox" || c.key === "settings sandbox";
}

function widens(was: CodeInput, now: CodeInput): boolean {
  if (now.kind === "permission-mode") return rank(now.value) > rank(was.value);
  if (now.kind === "sandbox" && now.key !== "settings sandbox") {
    const hosts = (v: string) =>
      new Set((JSON.parse(v) as { allowedDomains?: string[] }).allowedDomains ?? []);
    const had = hosts(was.value);
    return [...hosts(now.value)].some((h) => !had.has(h));
  }
  return true;
}

const rank = (mode: string) =>
  (PERMISSION_MODES as readonly string[]).includes(mode)
    ? (MODE_RANK[mode] ?? 1)
    : (MODE_RANK.bypassPermissions ?? 3);
