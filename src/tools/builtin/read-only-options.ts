/**
 * How a read-only program's options are read, so that no spelling of an option that writes or runs
 * a program passes for a read: GNU-style long options may be abbreviated (`--outp=F` is
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
 * Whether `args` use none of the options `rule` names as writing or running, in any spelling.
 * Words after `--` are operands. Contract: pure; errs on the side of "not read-only".
 */
export function usesNoWritingOption(rule: OptionRule, args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") return true;
    if (rule.words?.includes(arg)) return false;
    if (arg.startsWith("--")) {
      if (writesLong(rule, arg.slice(2))) return false;
    } else if (arg.startsWith("-") && arg.length > 1 && !rule.words) {
      const read = readBundle(rule, arg.slice(1));
      if (read === "writes") return false;
      if (read === "value-next") i++;
    }
  }
  return true;
}

function writesLong(rule: OptionRule, spelled: string): boolean {
  const name = spelled.split("=")[0] ?? "";
  if (name === "") return false;
  return (rule.long ?? []).some((d) => d.startsWith(name));
}

function readBundle(rule: OptionRule, letters: string): "writes" | "value-next" | "flags" {
  for (let j = 0; j < letters.length; j++) {
    const c = letters[j] as string;
    if (rule.short?.includes(c)) return "writes";
    if (rule.shortValue?.includes(c)) return j === letters.length - 1 ? "value-next" : "flags";
  }
  return "flags";
}
