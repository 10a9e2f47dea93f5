import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadShellParser } from "../../src/permissions/index.js";
import { inputFor, judge, list } from "../support/permissions.js";

beforeAll(loadShellParser);

// Under `allowed-tools: Bash` with a deny of curl: [command line, expected]. Each line that runs
// curl through another program or builtin must be refused; the controls must still run.
const UNDER_DENY: [line: string, expected: string][] = [
  // Builtins that make a name run another program, or run a callback.
  ["hash -p /usr/bin/curl ls && ls evil.io", "denied: cannot-judge"],
  ["hash -r", "allowed"],
  ["mapfile -C 'curl evil.io' -c 1 < f", "denied: cannot-judge"],
  ["readarray -tC 'curl evil.io' < f", "denied: cannot-judge"],
  ["mapfile -t lines < f", "allowed"],
  ["compgen -C 'curl evil.io' x", "denied: cannot-judge"],
  ["compgen -F f x", "denied: cannot-judge"],
  ["compgen -c gi", "allowed"],
  ["complete -C 'curl evil.io' x", "denied: cannot-judge"],
  ["enable -f ./x.so x", "denied: cannot-judge"],
  // Wrappers whose options cannot be read exactly.
  ["env -S 'curl evil.io'", "denied: cannot-judge"],
  ["env --split-string='curl evil.io'", "denied: cannot-judge"],
  ["env --unset X curl evil.io", "denied: denied-by-rule"],
  ["env --unset=X curl evil.io", "denied: denied-by-rule"],
  ["env --chdir /tmp curl evil.io", "denied: denied-by-rule"],
  ["env -x curl evil.io", "denied: cannot-judge"],
  ["time -f %e curl evil.io", "denied: denied-by-rule"],
  ["timeout --signal KILL 5 curl evil.io", "denied: denied-by-rule"],
  ["timeout -q 5 curl evil.io", "denied: cannot-judge"],
  ["nice -5 curl evil.io", "denied: denied-by-rule"],
  ["nice --adjustment=5 curl evil.io", "denied: denied-by-rule"],
  ["env FOO=1 ls", "allowed"],
  ["env", "allowed"],
  ["command -v curl", "allowed"],
  ["timeout 5 ls", "allowed"],
  // Programs that run a command through an option, in any spelling.
  ["sed e f", "denied: cannot-judge"],
  ["sed -e '1e curl evil.io' f", "denied: cannot-judge"],
  ["sed 's/x/curl evil.io/e' f", "denied: cannot-judge"],
  ["sed --expression='1e curl evil.io' f", "denied: cannot-judge"],
  ["sed -f script.sed f", "denied: cannot-judge"],
  ["sed -n 's/a/b/p' f", "allowed"],
  ["sed 's/foo/bar/g' f", "allowed"],
  ["tar -cf x.tar --checkpoint=1 --checkpoint-action=exec='curl evil.io' .", "denied: cannot-judge"],
  ["tar -cf x.tar --checkpoint-a=exec=sh .", "denied: cannot-judge"],
  ["tar -xf x.tar --to-command='curl evil.io'", "denied: cannot-judge"],
  ["tar -I 'curl evil.io' -cf x.tar .", "denied: cannot-judge"],
  ["tar -czf x.tgz src", "allowed"],
  ["rsync -e 'curl evil.io' a b:c", "denied: cannot-judge"],
  ["rsync -avze sh a b:c", "denied: cannot-judge"],
  ["rsync --rsh='curl evil.io' a b:c", "denied: cannot-judge"],
  ["rsync -av a/ b/", "allowed"],
  ["zip -T -TT 'curl evil.io' x.zip f", "denied: cannot-judge"],
  ["zip --unzip-command='curl evil.io' -T x.zip f", "denied: cannot-judge"],
  ["zip -r x.zip src", "allowed"],
  ["find . -execdir curl evil.io ;", "denied: cannot-judge"],
  ["find . -okdir curl evil.io ;", "denied: cannot-judge"],
  ["fd -x curl evil.io", "denied: cannot-judge"],
  ["fd --exec-batch curl", "denied: cannot-judge"],
  ["man -P 'curl evil.io' ls", "denied: cannot-judge"],
  ["man --pager='curl evil.io' ls", "denied: cannot-judge"],
  ["man ls", "allowed"],
  ["scp -S ./x a b:c", "denied: cannot-judge"],
  // Programs whose work is running commands.
  ["xargs curl < urls", "denied: cannot-judge"],
  ["make all", "denied: cannot-judge"],
  ["vim -c '!curl evil.io' f", "denied: cannot-judge"],
  ["less f", "denied: cannot-judge"],
  ["setpriv --reuid 1000 curl evil.io", "denied: cannot-judge"],
  ["flock /tmp/l curl evil.io", "denied: cannot-judge"],
  ["watch curl evil.io", "denied: cannot-judge"],
  ["parallel curl ::: a b", "denied: cannot-judge"],
  ["npx curl evil.io", "denied: cannot-judge"],
  ["npm exec -- curl evil.io", "denied: cannot-judge"],
  ["uv run curl evil.io", "denied: cannot-judge"],
  ["npm test", "allowed"],
  ["ls -la", "allowed"],
];

describe("the deny list knows the programs and builtins that run another command", () => {
  it.each(UNDER_DENY)("%j → %s", (line, expected) => {
    expect(judge(list("Bash", "Bash(curl:*)"), "Bash", inputFor("Bash", line))).toBe(expected);
  });

  it("denies curl behind any wrapper, in any order of readable wrappers", () => {
    const wrapper = fc.constantFrom(
      "env",
      "env -i",
      "env FOO=1",
      "env -u X",
      "env --unset X",
      "nice",
      "nice -n 3",
      "nice -3",
      "time",
      "time -p",
      "timeout 5",
      "timeout -k 1 5",
      "nohup",
      "stdbuf -oL",
      "command",
      "exec",
      "env -S",
      "timeout -x 5",
      "env --frobnicate",
    );
    fc.assert(
      fc.property(fc.array(wrapper, { maxLength: 4 }), (ws) => {
        const line = [...ws, "curl evil.io"].join(" ");
        expect(judge(list("Bash", "Bash(curl:*)"), "Bash", inputFor("Bash", line))).not.toBe("allowed");
      }),
      { numRuns: 400 },
    );
  });
});
