/**
 * How a program's options are read, so that no spelling of an option that writes or runs a program
 * passes unseen (plan mode's read-only table, the deny list's program runners): GNU-style long options may be abbreviated (`--outp=F` is
 * `--output=F`) and short options bundle (`-uo F` is `-u -o F`), and options may stand after the
 * operands. Data plus one pure reader; what it cannot read is not read-only.
 */
export interface OptionRule {
  /** Long options (without `--`) that write, delete or run a program; any abbreviation counts. */
  readonly long?: readonly string[];
  /** Short options (one letter each) that write, delete or run a program. */
  readonly short?: string;
  /** Short options that take a value, which is the rest of the word or else the next word. */
  readonly shortValue?: string;
  /** Options read as single-dash words matched exactly (find's `-exec`, `-delete`, …). */
  readonly words?: readonly string[];
}

/**
 * Whether `args` use any option `rule` names, in any spelling; a word that is not plain text
 * (`null`) counts as one. Words after `--` are operands. Contract: pure; errs on the side of "uses".
 */
export function usesNamedOption(rule: OptionRule, args: readonly (string | null)[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === null || arg === undefined) return true;
    if (arg === "--") return false;
    if (rule.words?.includes(arg)) return true;
    if (arg.startsWith("--")) {
      if (namesLong(rule, arg.slice(2))) return true;
    } else if (arg.startsWith("-") && arg.length > 1 && !rule.words) {
      const read = readBundle(rule, arg.slice(1));
      if (read === "named") return true;
      if (read === "value-next") i++;
    }
  }
  return false;
}

function namesLong(rule: OptionRule, spelled: string): boolean {
  const name = spelled.split("=")[0] ?? "";
  if (name === "") return false;
  return (rule.long ?? []).some((d) => d.startsWith(name));
}

function readBundle(rule: OptionRule, letters: string): "named" | "value-next" | "flags" {
  for (let j = 0; j < letters.length; j++) {
    const c = letters[j] as string;
    if (rule.short?.includes(c)) return "named";
    if (rule.shortValue?.includes(c)) return j === letters.length - 1 ? "value-next" : "flags";
  }
  return "flags";
}
