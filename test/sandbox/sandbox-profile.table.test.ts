import { describe, expect, it } from "vitest";
import { intersect } from "../../src/permissions/index.js";
import { bwrapArgs } from "../../src/sandbox/bwrap-args.js";
import { compileSandboxProfile, type SandboxProfile } from "../../src/sandbox/sandbox-profile.js";
import { DEFAULT_SANDBOX, type SandboxSetting } from "../../src/sandbox/sandbox-setting.js";
import { fakeFs } from "../support/fake-fs.js";
import { list, SPECS } from "../support/permissions.js";

/** The project these cases run in: /proj, with a few files; /proj/link is a symlink to /etc. */
const FS = fakeFs(
  [
    "/proj/.env",
    "/proj/README.md",
    "/proj/out/keep.txt",
    "/proj/out/a.log",
    "/proj/src/a.ts",
    "/proj/src/lib/b.ts",
    "/proj/secrets/k",
    "/proj/certs/a.pem",
    "/proj/certs/b.crt",
    "/proj/docs/x.md",
    "/proj/empty/",
    "/etc/passwd",
    "/tmp/",
  ],
  { "/proj/link": "/etc", "/proj/cfg": "/etc/passwd" },
);

function profile(
  allow: string | null,
  deny?: string,
  setting: SandboxSetting = DEFAULT_SANDBOX,
  cwd = "/proj",
) {
  return compileSandboxProfile(list(allow, deny), setting, {
    specs: SPECS,
    projectDir: "/proj",
    cwd,
    fs: FS,
  });
}

/** A profile in one line: what is writable (folders end in /), kept read-only, hidden. */
function brief(p: SandboxProfile): string {
  const w = p.writable.map((a) => (a.tree && a.path !== "/" ? `${a.path}/` : a.path)).join(" ") || "-";
  const r = p.readOnly.join(" ") || "-";
  const h = p.hidden.map((x) => (x.dir ? `${x.path}/` : x.path)).join(" ") || "-";
  return `write ${w} | read-only ${r} | hidden ${h}${p.problem ? " | problem" : ""}`;
}

describe("compileSandboxProfile: writable folders come from Write and Edit, never wider", () => {
  const cases: [allow: string | null, deny: string | undefined, expected: string][] = [
    ["Read, Bash", undefined, "write - | read-only - | hidden -"],
    ["Bash, Write", undefined, "write /proj/ | read-only - | hidden -"],
    [null, undefined, "write /proj/ | read-only - | hidden -"],
    ["Bash, Edit", undefined, "write /proj/ | read-only - | hidden -"],
    ["Bash, Write(out/**)", undefined, "write /proj/out/ | read-only - | hidden -"],
    ["Bash, Write(out/**/*)", undefined, "write /proj/out/ | read-only - | hidden -"],
    [
      "Bash, Write(/proj/out/**), Write(src/**)",
      undefined,
      "write /proj/out/ /proj/src/ | read-only - | hidden -",
    ],
    // Edit's patterns bind Write: Write is left with nothing, and Edit decides.
    ["Bash, Write(out/**), Edit(src/**)", undefined, "write /proj/src/ | read-only - | hidden -"],
    // Both offered: a folder must be allowed to both.
    ["Bash, Write, Edit(src/**)", undefined, "write /proj/src/ | read-only - | hidden -"],
    ["Bash, Write(src/**), Edit(src/lib/**)", undefined, "write /proj/src/lib/ | read-only - | hidden -"],
    ["Bash, Write(out/*.log)", undefined, "write - | read-only - | hidden -"],
    ["Bash, Write(**/*.ts)", undefined, "write - | read-only - | hidden -"],
    ["Bash, Write(out/keep.txt)", undefined, "write /proj/out/keep.txt | read-only - | hidden -"],
    ["Bash, Write(out/new.txt)", undefined, "write - | read-only - | hidden -"],
    ["Bash, Write(missing/**)", undefined, "write - | read-only - | hidden -"],
    ["Bash, Write(out)", undefined, "write - | read-only - | hidden -"],
    ["Bash, Write(/**)", undefined, "write / | read-only - | hidden -"],
    ["Bash, Write", "Write(.env)", "write /proj/ | read-only /proj/.env | hidden -"],
    ["Bash, Write", "Edit(out/**)", "write /proj/ | read-only /proj/out | hidden -"],
    [
      "Bash, Write",
      "Write(**/*.ts)",
      "write /proj/ | read-only /proj/src/a.ts /proj/src/lib/b.ts | hidden -",
    ],
    ["Bash, Write(out/**)", "Edit(**)", "write - | read-only - | hidden -"],
    ["Bash, Write(out/**)", "Write(out)", "write - | read-only - | hidden -"],
    ["Bash, Write(out/**)", "Edit(src/**)", "write /proj/out/ | read-only - | hidden -"],
    [
      "Bash, Write(out/**)",
      "Edit(out/keep.txt)",
      "write /proj/out/ | read-only /proj/out/keep.txt | hidden -",
    ],
    ["Bash, Write", "Edit", "write - | read-only - | hidden -"],
    ["Bash, Write", "Write", "write - | read-only - | hidden -"],
    // A folder through a symlink is writable only where its real folder is.
    ["Bash, Write(link/**)", undefined, "write - | read-only - | hidden -"],
    ["Bash, Write(link/**), Write(/etc/**)", undefined, "write /etc/ | read-only - | hidden -"],
    ["Bash, Write", "Write(${SKILL_DIR}/x)", "write - | read-only - | hidden -"],
  ];
  it.each(cases)("allow %s, deny %s → %s", (allow, deny, expected) => {
    expect(brief(profile(allow, deny))).toBe(expected);
  });

  it("says why a pattern makes nothing writable", () => {
    expect(profile("Bash, Write(out/*.log)").notes).toContain(
      "Write(out/*.log) makes nothing writable for commands: only a folder with everything below it (DIR/**) or one existing file can be",
    );
    expect(profile("Bash, Write(missing/**)").notes).toContain(
      "/proj/missing does not exist, so commands cannot write in it (create it first)",
    );
    expect(profile("Bash, Write(link/**)").notes).toContain(
      "/proj/link leads through a symlink to /etc, which the lists do not allow writing",
    );
  });

  it("keeps every hop's patterns: an intersection is as narrow as its narrowest side", () => {
    const l = intersect(list("Bash, Write(src/**)"), list("Bash, Write(src/lib/**), Write(out/**)"));
    const p = compileSandboxProfile(l, DEFAULT_SANDBOX, {
      specs: SPECS,
      projectDir: "/proj",
      cwd: "/proj",
      fs: FS,
    });
    expect(brief(p)).toBe("write /proj/src/lib/ | read-only - | hidden -");
  });
});

describe("compileSandboxProfile: Read denies are hidden", () => {
  const cases: [deny: string, expected: string][] = [
    ["Read(.env)", "write /proj/ | read-only - | hidden /proj/.env"],
    ["Read(secrets/**)", "write /proj/ | read-only - | hidden /proj/secrets/"],
    ["Read(**/*.pem)", "write /proj/ | read-only - | hidden /proj/certs/a.pem"],
    ["Read(certs/*)", "write /proj/ | read-only - | hidden /proj/certs/a.pem /proj/certs/b.crt"],
    ["Read(src)", "write /proj/ | read-only - | hidden /proj/src/"],
    ["Read(nothing-here)", "write /proj/ | read-only - | hidden -"],
    // The real path is hidden: the symlink leads to nothing either.
    ["Read(cfg)", "write /proj/ | read-only - | hidden /etc/passwd"],
    [
      "Read(.env), Read(**/*.md)",
      "write /proj/ | read-only - | hidden /proj/.env /proj/README.md /proj/docs/x.md",
    ],
    // A bare deny removes the Read tool; it hides nothing from commands.
    ["Read", "write /proj/ | read-only - | hidden -"],
    // Denies of other tools hide nothing: Grep's and Glob's rules are about those tools.
    ["Grep(secrets/**)", "write /proj/ | read-only - | hidden -"],
  ];
  it.each(cases)("deny %s → %s", (deny, expected) => {
    expect(brief(profile("Bash, Write", deny))).toBe(expected);
  });

  it("refuses a deny it cannot interpret, and a hidden folder that holds the working folder", () => {
    expect(profile("Bash", "Read(${SKILL_DIR}/x)").problem).toBe(
      "the deny rule 'Read(${SKILL_DIR}/x)' cannot be interpreted, so what it keeps from being read cannot be hidden from commands",
    );
    expect(profile("Bash", "Read(src/**)", DEFAULT_SANDBOX, "/proj/src/lib").problem).toBe(
      "the working folder /proj/src/lib is inside /proj/src, which a Read deny rule hides from commands",
    );
  });

  it("hides a glob's base folder when it matches too many paths to list", async () => {
    const { hiddenPaths } = await import("../../src/sandbox/hidden-paths.js");
    const r = hiddenPaths(list("Bash", "Read(docs/**/*.md)"), {
      cwd: "/proj",
      fs: FS,
      matches: () => undefined,
    });
    expect(r.hidden).toEqual([{ path: "/proj/docs", dir: true }]);
    expect(r.notes).toEqual([
      "'Read(docs/**/*.md)' matches too many paths to list: all of /proj/docs is hidden instead",
    ]);
  });
});

describe("compileSandboxProfile: the network", () => {
  const net = (allow: string, deny?: string, setting: SandboxSetting = DEFAULT_SANDBOX) =>
    profile(allow, deny, setting).network;
  const reach = (allow: string, deny: string | undefined, host: string, setting?: SandboxSetting) => {
    const n = net(allow, deny, setting);
    return n.kind === "none" ? "no network" : n.allows(host) ? "reached" : "refused";
  };
  const cases: [
    allow: string,
    deny: string | undefined,
    host: string,
    setting: SandboxSetting | undefined,
    expected: string,
  ][] = [
    ["Bash", undefined, "example.com", undefined, "no network"],
    ["Bash, WebFetch", undefined, "example.com", undefined, "reached"],
    ["Bash, WebFetch", undefined, "127.0.0.1", undefined, "reached"],
    ["Bash, WebFetch(domain:example.com)", undefined, "example.com", undefined, "reached"],
    ["Bash, WebFetch(domain:example.com)", undefined, "api.example.com", undefined, "refused"],
    ["Bash, WebFetch(domain:*.example.com)", undefined, "api.example.com", undefined, "reached"],
    ["Bash, WebFetch(domain:*.example.com)", undefined, "example.com", undefined, "refused"],
    ["Bash, WebFetch", "WebFetch(domain:evil.com)", "evil.com", undefined, "refused"],
    ["Bash, WebFetch", "WebFetch", "example.com", undefined, "no network"],
    ["Bash", undefined, "registry.npmjs.org", { allowedDomains: ["registry.npmjs.org"] }, "reached"],
    ["Bash", undefined, "example.com", { allowedDomains: ["registry.npmjs.org"] }, "refused"],
    ["Bash", undefined, "a.b.npmjs.org", { allowedDomains: ["*.npmjs.org"] }, "reached"],
  ];
  it.each(cases)("allow %s, deny %s: %s (%o) is %s", (allow, deny, host, setting, expected) => {
    expect(reach(allow, deny, host, setting)).toBe(expected);
  });

  it("says what may be reached", () => {
    const n = net("Bash, WebFetch(domain:example.com)", "WebFetch(domain:x.example.com)", {
      allowedDomains: ["registry.npmjs.org"],
    });
    expect(n.kind === "proxy" && n.shown).toEqual([
      "example.com except x.example.com (WebFetch)",
      "registry.npmjs.org (sandbox)",
    ]);
  });
});

describe("bwrapArgs", () => {
  it("binds the root read-only first, private /tmp and /run over it, writable folders, read-only cut-outs, hidden paths last", () => {
    const p = profile("Bash, Write(out/**), WebFetch", "Read(.env), Read(secrets/**), Edit(out/keep.txt)");
    const args = bwrapArgs(p, {
      command: "bash",
      args: ["-c", "true"],
      disableUserns: true,
      proxySocket: "/x/p.sock",
    });
    expect(args.join(" ")).toBe(
      [
        "--unshare-user --unshare-ipc --unshare-pid --unshare-net --unshare-uts --unshare-cgroup-try",
        "--die-with-parent --new-session --cap-drop ALL --disable-userns",
        "--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /run",
        "--bind /proj/out /proj/out --ro-bind /proj/out/keep.txt /proj/out/keep.txt",
        "--ro-bind /dev/null /proj/.env --tmpfs /proj/secrets --remount-ro /proj/secrets",
        "--bind /x/p.sock /run/agentmd-proxy.sock --chdir /proj -- bash -c true",
      ].join(" "),
    );
  });

  it("shows a project under /tmp through its private /tmp, read-only, before its writable folders", () => {
    const fs = fakeFs(["/tmp/p/out/", "/tmp/p/.env", "/tmp/other/secret"]);
    const p = compileSandboxProfile(
      list("Bash, Write(/tmp/p/out/**)", "Read(/tmp/p/.env), Read(/tmp/other/**)"),
      DEFAULT_SANDBOX,
      {
        specs: SPECS,
        projectDir: "/tmp/p",
        cwd: "/tmp/p/out",
        fs,
      },
    );
    expect(bwrapArgs(p, { command: "true", args: [], disableUserns: false }).slice(10).join(" ")).toBe(
      [
        "--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /run",
        "--ro-bind /tmp/p /tmp/p --bind /tmp/p/out /tmp/p/out --ro-bind /dev/null /tmp/p/.env",
        "--chdir /tmp/p/out -- true",
      ].join(" "),
    );
  });
});
