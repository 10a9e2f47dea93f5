/**
 * What git can be made to run besides itself, for deny patterns: git is a program runner when it is
 * configured (`git config alias.x '!rm v'`, `-c core.pager=…`), when a subcommand is an alias (`git
 * p` for `push`, or for `!rm v`), and through options that name a program (`--upload-pack`,
 * `rebase --exec`). Data, not code: a subcommand that is not listed here is not known to be git's own.
 */

/** Git's own subcommands (`git --list-cmds=main`), less those that run programs (below). */
const BUILTINS: ReadonlySet<string> = new Set(
  `add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore
  check-mailmap check-ref-format checkout checkout-index cherry cherry-pick clean clone column commit
  commit-graph commit-tree config count-objects credential describe diagnose diff diff-files diff-index
  diff-tree difftool fast-export fast-import fetch fetch-pack fmt-merge-msg for-each-ref format-patch
  fsck fsck-objects gc get-tar-commit-id grep hash-object help hook index-pack init init-db
  interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base
  merge-file merge-tree mktag mktree multi-pack-index mv name-rev notes pack-objects pack-redundant
  pack-refs patch-id prune prune-packed pull push range-diff read-tree rebase reflog remote repack
  replace request-pull rerere reset restore rev-list rev-parse revert rm send-pack shortlog show
  show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule switch
  symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info var
  verify-commit verify-pack verify-tag version whatchanged worktree write-tree`.split(/\s+/),
);

/** Subcommands whose work is running programs (or git commands) given to them. */
const RUNNERS: ReadonlySet<string> = new Set(
  "mergetool filter-branch subtree instaweb web--browse remote-ext remote-fd shell for-each-repo".split(" "),
);

interface Risky {
  /** Long options that name a program (git accepts any unambiguous prefix of one). */
  readonly long?: readonly string[];
  /** Short options that do, alone or in a cluster (`-ix`). */
  readonly short?: RegExp;
  /** Words that make the subcommand run a command (`submodule foreach`, `bisect run`). */
  readonly words?: readonly string[];
}

const UPLOAD: Risky = { long: ["--upload-pack"] };
const TEMPLATE: Risky = { long: ["--template"] };
const RECEIVE: Risky = { long: ["--receive-pack", "--exec"] };

const RISKY: Readonly<Record<string, Risky>> = {
  "ls-remote": { long: ["--upload-pack"], short: /^-[a-zA-Z]*u/ },
  fetch: UPLOAD,
  pull: UPLOAD,
  clone: { long: ["--upload-pack", "--template", "--config"], short: /^-[a-zA-Z]*[uc]/ },
  init: TEMPLATE,
  "init-db": TEMPLATE,
  archive: { long: ["--exec"] },
  "fetch-pack": { long: ["--upload-pack", "--exec"] },
  push: RECEIVE,
  "send-pack": RECEIVE,
  rebase: { long: ["--exec"], short: /^-[a-zA-Z]*x/ },
  submodule: { words: ["foreach"] },
  bisect: { words: ["run"] },
  difftool: { long: ["--extcmd", "--tool"], short: /^-[a-zA-Z]*[xt]/ },
  grep: { long: ["--open-files-in-pager"], short: /^-[a-zA-Z]*O/ },
};

/** `git config` forms that only read. */
const CONFIG_READS: ReadonlySet<string> = new Set(
  "--get --get-all --get-regexp --get-urlmatch --get-color --get-colorbool --list -l".split(" "),
);

/** Git's options before its subcommand, and whether one of them can make it run a program. */
export function gitGlobals(words: readonly (string | null)[]): { rest: number; risky?: string } {
  let i = 1;
  while (i < words.length) {
    const w = words[i];
    if (w === null || w === undefined) return { rest: i, risky: "with an option that is not plain text" };
    if (!w.startsWith("-")) break;
    if (w === "-c" || w.startsWith("--config-env") || w.startsWith("--exec-path"))
      return { rest: i, risky: w.split("=")[0] };
    i += /^(-C|--git-dir|--work-tree|--namespace|--super-prefix|--list-cmds)$/.test(w) ? 2 : 1;
  }
  return { rest: i };
}

/** Why `git …` may run a program a deny pattern cannot see, if it may. */
export function gitRunsProgram(words: readonly (string | null)[]): string | undefined {
  const { rest, risky } = gitGlobals(words);
  if (risky) return `'git ${risky}' can make git run another program`;
  if (rest >= words.length) return undefined;
  const sub = words[rest];
  if (sub === null || sub === undefined) return "git's subcommand is not plain text (it may be an alias)";
  if (RUNNERS.has(sub)) return `'git ${sub}' runs other programs`;
  if (!BUILTINS.has(sub))
    return `'git ${sub}' is not one of git's own commands: it may be an alias, which can run any program`;
  const args = words.slice(rest + 1);
  if (sub === "config")
    return configSets(args) ? "'git config' that sets a value can make git run a program" : undefined;
  const r = RISKY[sub];
  if (r && args.some((a) => a === null || namesProgram(r, a)))
    return `'git ${sub}' is given an option that can make it run another program`;
  return undefined;
}

function configSets(args: readonly (string | null)[]): boolean {
  if (args.some((a) => a === null)) return true;
  if (args[0] === "get" || args[0] === "list") return false;
  return !args.some((a) => a !== null && CONFIG_READS.has(a));
}

function namesProgram(r: Risky, arg: string): boolean {
  if (r.words?.includes(arg)) return true;
  if (r.short?.test(arg) && !arg.startsWith("--")) return true;
  const option = arg.split("=")[0] as string;
  return option.length > 2 && option.startsWith("--") && (r.long ?? []).some((l) => l.startsWith(option));
}
