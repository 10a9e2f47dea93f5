import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide, intersect, offered, type PermissionList } from "../../src/permissions/index.js";
import { bwrapArgs } from "../../src/sandbox/bwrap-args.js";
import { within } from "../../src/sandbox/path-areas.js";
import { compileSandboxProfile, type SandboxProfile } from "../../src/sandbox/sandbox-profile.js";
import { DEFAULT_SANDBOX } from "../../src/sandbox/sandbox-setting.js";
import { fakeFs } from "../support/fake-fs.js";
import { list, SPECS } from "../support/permissions.js";

/** Files a project may hold; each case picks some. */
const FILES = [
  "/proj/.env",
  "/proj/README.md",
  "/proj/out/a.txt",
  "/proj/out/keep.txt",
  "/proj/out/deep/c.log",
  "/proj/src/a.ts",
  "/proj/src/lib/b.ts",
  "/proj/secrets/k",
  "/proj/docs/x.md",
  "/proj/certs/a.pem",
];
/** Paths that may or may not exist: what a command could create. */
const ANY_PATHS = [
  ...FILES,
  "/proj/new.txt",
  "/proj/out/new.txt",
  "/proj/src/new.ts",
  "/proj/zz/y",
  "/etc/x",
];

const ALLOW = [
  "Write",
  "Edit",
  "Write(out/**)",
  "Edit(out/**)",
  "Write(src/**)",
  "Edit(src/**)",
  "Write(src/lib/**)",
  "Edit(src/lib/**/*)",
  "Write(src/*.ts)",
  "Write(**)",
  "Write(/proj/**)",
  "Edit(docs/x.md)",
  "Write(out/keep.txt)",
  "Write(/etc/**)",
  "Read",
  "Bash",
];
const DENY = [
  "Write(.env)",
  "Edit(src/lib/**)",
  "Write(**/*.ts)",
  "Edit(out/keep.txt)",
  "Write(secrets/**)",
  "Edit(out/deep/**)",
  "Edit",
  "Read(.env)",
  "Read(secrets/**)",
  "Read(**/*.pem)",
  "Read(docs/x.md)",
  "Read(out/*.txt)",
];

const pieces = (from: readonly string[], max: number) =>
  fc.uniqueArray(fc.constantFrom(...from), { maxLength: max }).map((xs) => xs.join(", "));

/** A list, or the intersection of two (a caller and its callee), and the files that exist. */
const scenario = fc.record({
  caller: pieces(ALLOW, 5),
  callerDeny: pieces(DENY, 3),
  callee: fc.option(pieces(ALLOW, 5), { nil: undefined }),
  calleeDeny: pieces(DENY, 2),
  files: fc.subarray(FILES),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function build(s: Scenario) {
  const one = (allow: string, deny: string) =>
    list(allow === "" ? null : allow, deny === "" ? undefined : deny);
  const l =
    s.callee === undefined
      ? one(s.caller, s.callerDeny)
      : intersect(one(s.caller, s.callerDeny), one(s.callee, s.calleeDeny));
  const fs = fakeFs(s.files);
  const profile = compileSandboxProfile(l, DEFAULT_SANDBOX, {
    specs: SPECS,
    projectDir: "/proj",
    cwd: "/proj",
    fs,
  });
  return { list: l, fs, profile };
}

/** Whether a command can change `p` on the host through the profile's mounts. */
function hostWritable(p: SandboxProfile, file: string): boolean {
  if (!p.writable.some((a) => (a.tree ? within(file, a.path) : file === a.path))) return false;
  if (p.readOnly.some((r) => within(file, r))) return false;
  return !p.hidden.some((h) => within(file, h.path));
}

const allowed = (l: PermissionList, tool: string, input: Record<string, unknown>, fs = fakeFs([])) =>
  decide(l, { tool, input }, { specs: SPECS, cwd: "/proj", realPath: fs.realPath }).kind === "allowed";

/** The writing tools a list lets a model use at all. */
const writingTools = (l: PermissionList) => ["Write", "Edit"].filter((t) => offered(l, [t]).length > 0);

describe("sandbox profiles, for any list", () => {
  it("make nothing writable that decide denies to a writing tool the run offers, for every file that exists", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { list: l, fs, profile } = build(s);
        const tools = writingTools(l);
        for (const file of s.files) {
          if (!hostWritable(profile, file)) continue;
          expect(tools.length).toBeGreaterThan(0);
          for (const t of tools)
            expect([t, file, allowed(l, t, { file_path: file }, fs)]).toEqual([t, file, true]);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("make nothing writable, existing or not, beyond what the allow rules admit", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { list: l, profile } = build(s);
        const allowOnly: PermissionList = { rules: l.rules, deny: [] };
        for (const p of ANY_PATHS) {
          if (!hostWritable(profile, p)) continue;
          for (const t of writingTools(allowOnly))
            expect([t, p, allowed(allowOnly, t, { file_path: p })]).toEqual([t, p, true]);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("hide every existing file a Read deny rule names", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { list: l, fs, profile } = build(s);
        fc.pre(profile.problem === undefined);
        const denyOnly: PermissionList = { rules: null, deny: l.deny };
        for (const file of s.files) {
          const d = decide(
            denyOnly,
            { tool: "Read", input: { file_path: file } },
            { specs: SPECS, cwd: "/proj", realPath: fs.realPath },
          );
          const hidden = profile.hidden.some((h) => within(file, h.path));
          if (d.kind === "denied" && d.reason === "denied-by-rule")
            expect([file, hidden]).toEqual([file, true]);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("always run in their own user, PID and network namespaces, tied to the runner, with the root read-only first", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { profile } = build(s);
        const args = bwrapArgs(profile, { command: "bash", args: ["-c", "x"], disableUserns: false });
        for (const flag of [
          "--unshare-user",
          "--unshare-pid",
          "--unshare-net",
          "--die-with-parent",
          "--new-session",
        ])
          expect(args).toContain(flag);
        const root = args.indexOf("--ro-bind");
        expect(args.slice(root, root + 3)).toEqual(["--ro-bind", "/", "/"]);
        const binds = args.flatMap((a, i) => (a === "--bind" ? [args[i + 1]] : []));
        expect(binds).toEqual(profile.writable.map((w) => w.path));
        expect(args.slice(-3)).toEqual(["bash", "-c", "x"]);
      }),
      { numRuns: 200 },
    );
  });
});
