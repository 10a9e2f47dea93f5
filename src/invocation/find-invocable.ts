import type { CommandDefinition, SkillDefinition } from "../definitions/types.js";
import { didYouMean } from "../shared/did-you-mean.js";
import { byName, type HopCore } from "./hop-core.js";

export type Invocable = SkillDefinition | CommandDefinition;

/** The skill (first) or command a name invokes, or why there is none. */
export function findInvocable(core: HopCore, name: string, by: "user" | "model"): Invocable | string {
  const skill = byName(core.skills, name);
  if (by === "model") {
    if (!skill) return `there is no skill named '${name}'${loadedNames(name, [...core.skills.keys()])}`;
    if (skill.disableModelInvocation) return `the skill '${name}' can only be invoked by a user (/${name})`;
    return skill;
  }
  const command = core.commands.get(name);
  if (skill && skill.userInvocable !== false) return skill;
  if (command && command.userInvocable !== false) return command;
  return unknownInvocable(name, slashNames(core));
}

/** `unknown command or skill /revew; did you mean /review? Known: …`, for a name not in `names`. */
export function unknownInvocable(name: string, names: readonly string[]): string {
  const known = names.map((n) => `/${n}`);
  const near = didYouMean(`/${name}`, known);
  const list = known.length
    ? ` Known: ${known.slice(0, 20).join(", ")}${known.length > 20 ? ", …" : ""}.`
    : "";
  return `unknown command or skill /${name}${near ? `; did you mean ${near}?` : "."}${list}`;
}

/** The names a user may type after `/`, sorted. */
export function slashNames(core: HopCore): string[] {
  const names = new Set<string>();
  for (const s of core.skills.values()) if (s.userInvocable !== false) names.add(s.name);
  for (const c of core.commands.values()) if (c.userInvocable !== false) names.add(c.name);
  // A plugin's skill is found by its bare name too, when no other skill has that name.
  const bare = [...core.skills.values()]
    .filter((s) => s.userInvocable !== false && s.name.includes(":"))
    .map((s) => s.name.slice(s.name.indexOf(":") + 1));
  for (const b of bare) if (!names.has(b) && bare.indexOf(b) === bare.lastIndexOf(b)) names.add(b);
  return [...names].sort();
}

/** `; did you mean 'x'?; loaded: a, b`: the tail of a message about a name that is not defined. */
export function loadedNames(name: string, names: readonly string[]): string {
  const near = didYouMean(name, names);
  return `${near ? `; did you mean '${near}'?` : ""}; loaded: ${names.length ? names.join(", ") : "none"}`;
}
