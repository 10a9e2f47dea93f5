import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkServerConfig } from "../../src/definitions/mcp-servers.js";
import { loadSettings } from "../../src/definitions/settings.js";
import { expandConfig } from "../../src/mcp/expand-vars.js";
import { startUpVariable } from "../../src/shared/start-up-variables.js";
import { tempDir } from "../support/fixtures.js";
import { writeFiles } from "../support/tools.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

const root = () => path.join(dir, "p");
const userDir = () => path.join(dir, "home", ".claude");
const load = () => loadSettings(root(), userDir());
const write = (file: string, env: Record<string, string>) =>
  writeFiles(dir, { [file]: JSON.stringify({ env }) });

/** Variables a project's settings may not set, each with what reads it. */
const REFUSED: [name: string, reader: RegExp][] = [
  ["BASH_ENV", /bash/],
  ["ENV", /bash and sh/],
  ["SHELLOPTS", /bash/],
  ["PS4", /bash/],
  ["PROMPT_COMMAND", /bash/],
  ["IFS", /bash/],
  ["CDPATH", /bash/],
  ["BASH_FUNC_echo%%", /not a variable name/],
  ["BASH_FUNC_echo", /function/],
  ["LD_PRELOAD", /loader/],
  ["LD_LIBRARY_PATH", /loader/],
  ["LD_AUDIT", /loader/],
  ["DYLD_INSERT_LIBRARIES", /loader/],
  ["GCONV_PATH", /loader/],
  ["NODE_OPTIONS", /node/],
  ["NODE_PATH", /node/],
  ["PYTHONSTARTUP", /python/],
  ["PYTHONPATH", /python/],
  ["PYTHONWARNINGS", /python/],
  ["PERL5OPT", /perl/],
  ["PERL5LIB", /perl/],
  ["RUBYOPT", /ruby/],
  ["GIT_CONFIG_COUNT", /git/],
  ["GIT_CONFIG_KEY_0", /git/],
  ["GIT_SSH_COMMAND", /git/],
  ["GIT_PAGER", /git/],
  ["GIT_DIR", /git/],
  ["XDG_CONFIG_HOME", /configuration/],
  ["HOME", /home folder/],
  ["PATH", /which program/],
  ["EDITOR", /program/],
  ["PAGER", /program/],
  ["LESSOPEN", /program/],
  ["TAR_OPTIONS", /program/],
  ["ZIPOPT", /program/],
  ["RSYNC_RSH", /program/],
  ["CURL_HOME", /program/],
  ["JAVA_TOOL_OPTIONS", /JVM/],
  ["MAKEFLAGS", /build/],
  ["RUSTC_WRAPPER", /build/],
  ["GOFLAGS", /build/],
  ["NPM_CONFIG_USERCONFIG", /npm/],
  ["npm_config_script_shell", /npm/],
  ["http_proxy", /network/],
  ["TMPDIR", /temporary/],
  ["ANTHROPIC_BASE_URL", /API key/],
  ["ANTHROPIC_API_KEY", /API key/],
  ["AGENTMD_SECRETS_FD", /agentmd/],
  ["LD_PRELOAD=/tmp/x.so:", /not a variable name/],
  ["bash_env", /bash/],
];
const ORDINARY = ["FOO", "NODE_ENV", "RUST_LOG", "DEBUG", "PYTHONUNBUFFERED", "ANTHROPIC_MODEL", "CI", "TZ"];

describe("startUpVariable", () => {
  it.each(REFUSED)("%s is refused: %s", (name, reader) => {
    expect(startUpVariable(name)).toMatch(reader);
  });
  it.each(ORDINARY)("%s is ordinary", (name) => {
    expect(startUpVariable(name)).toBeUndefined();
  });
});

describe("a project's settings env", () => {
  for (const file of [".claude/settings.json", ".claude/settings.local.json"]) {
    it.each(REFUSED)(`${file}: %s is an error naming the key and the file, and is not applied`, (name) => {
      write(`p/${file}`, { [name]: "x", FOO: "bar" });
      const { settings, diagnostics } = load();
      const errors = diagnostics.filter((d) => d.severity === "error");
      expect(errors.map((d) => [d.code, d.file])).toEqual([["settings-env", path.join(root(), file)]]);
      expect(errors[0]?.message).toContain(`'env.${name}' in ${file} is refused`);
      expect(Object.keys(settings.env)).toEqual(["FOO"]);
    });
  }

  it("points at the key's line", () => {
    writeFiles(dir, {
      "p/.claude/settings.json": '{\n  "env": {\n    "FOO": "1",\n    "BASH_ENV": "x"\n  }\n}\n',
    });
    const d = load().diagnostics[0];
    expect([d?.line, d?.column]).toEqual([4, 5]);
  });

  it("the user's own file may set any of them", () => {
    write("home/.claude/settings.json", { BASH_ENV: "/x", HOME: "/h", PATH: "/bin", GIT_PAGER: "cat" });
    const { settings, diagnostics } = load();
    expect(diagnostics).toEqual([]);
    expect(settings.env).toEqual({ BASH_ENV: "/x", HOME: "/h", PATH: "/bin", GIT_PAGER: "cat" });
  });

  it("ordinary values are kept, the most specific file winning", () => {
    write("home/.claude/settings.json", { FOO: "user", A: "a" });
    write("p/.claude/settings.json", { FOO: "project", NODE_ENV: "test" });
    write("p/.claude/settings.local.json", { FOO: "local" });
    const { settings, diagnostics } = load();
    expect(diagnostics).toEqual([]);
    expect(settings.env).toEqual({ FOO: "local", A: "a", NODE_ENV: "test" });
  });

  /** Names: the refused ones in any case, the ordinary ones, and arbitrary text. */
  const name = fc.oneof(
    fc
      .constantFrom(...REFUSED.map(([n]) => n))
      .chain((n) => fc.constantFrom(n, n.toLowerCase(), n[0] + n.slice(1).toLowerCase())),
    fc.constantFrom(...ORDINARY),
    fc.string({ minLength: 1, maxLength: 12 }),
  );
  it("whatever env a project file holds, no variable that changes what a command does is applied", () => {
    fc.assert(
      fc.property(
        fc.dictionary(name, fc.string({ maxLength: 8 }), { maxKeys: 6 }),
        fc.constantFrom(".claude/settings.json", ".claude/settings.local.json"),
        (env, file) => {
          cleanup();
          ({ dir, cleanup } = tempDir());
          write(`p/${file}`, env);
          const { settings, diagnostics } = load();
          const refused = Object.keys(env).filter((k) => startUpVariable(k) !== undefined);
          // Either the file is refused (the run does not start), or nothing it sets is one of them.
          for (const k of Object.keys(settings.env)) expect(startUpVariable(k)).toBeUndefined();
          expect(diagnostics.filter((d) => d.code === "settings-env")).toHaveLength(refused.length);
          for (const k of REFUSED.map(([n]) => n))
            if (Object.hasOwn(env, k)) expect(Object.hasOwn(settings.env, k)).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("MCP definitions never expand agentmd's credentials", () => {
  const KEY = "sk-very-secret";
  const places: [where: string, config: Record<string, unknown>][] = [
    ["env.K", { command: "srv", env: { K: "${ANTHROPIC_API_KEY}" } }],
    ["args.1", { command: "srv", args: ["--key", "x${ANTHROPIC_API_KEY}"] }],
    ["command", { command: "${ANTHROPIC_AUTH_TOKEN}" }],
    ["cwd", { command: "srv", cwd: "/tmp/${ANTHROPIC_API_KEY:-x}" }],
    [
      "headers.Authorization",
      { type: "http", url: "https://x/", headers: { Authorization: "Bearer ${ANTHROPIC_API_KEY}" } },
    ],
    ["url", { type: "http", url: "https://x/?k=${ANTHROPIC_AUTH_TOKEN}" }],
  ];
  it.each(places)("%s: the definition is an error naming the variable", (where, config) => {
    const checked = checkServerConfig(config);
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.path.join(".")).toBe(where);
      expect(checked.message).toMatch(/names \$\{ANTHROPIC_(API_KEY|AUTH_TOKEN)\}, agentmd's own credential/);
    }
  });

  it("expanding at start never hands the key out, and says which it refused", () => {
    const env = { ANTHROPIC_API_KEY: KEY, ANTHROPIC_AUTH_TOKEN: KEY, OTHER: "o" };
    const text = fc
      .array(
        fc.constantFrom("${ANTHROPIC_API_KEY}", "${ANTHROPIC_AUTH_TOKEN:-d}", "${OTHER}", "a", "$", "{"),
        { maxLength: 5 },
      )
      .map((p) => p.join(""));
    fc.assert(
      fc.property(text, text, text, (a, b, c) => {
        const r = expandConfig(
          { type: "stdio", command: a, args: [b], env: { K: c }, headers: { H: a } },
          env,
        );
        expect(JSON.stringify(r.config)).not.toContain(KEY);
        expect(r.secrets.length > 0).toBe(/\$\{ANTHROPIC_/.test(a + b + c));
      }),
    );
  });

  it("control: other variables still expand", () => {
    const r = expandConfig({ type: "stdio", command: "srv", env: { T: "${OTHER}" } }, { OTHER: "o" });
    expect([r.config.env, r.secrets, r.missing]).toEqual([{ T: "o" }, [], []]);
  });
});
