import { request } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError, definitionFromObject } from "../../src/index.js";
import { resolveSettings } from "../../src/invocation/settings.js";
import { parseTarget, startDomainProxy } from "../../src/sandbox/domain-proxy.js";
import {
  DEFAULT_SANDBOX,
  domainCovers,
  domainMatches,
  joinSandbox,
  resolveSandbox,
  type SandboxSetting,
} from "../../src/sandbox/sandbox-setting.js";

const npm: SandboxSetting = { allowedDomains: ["registry.npmjs.org"] };
const github: SandboxSetting = { allowedDomains: ["*.github.com", "registry.npmjs.org"] };

describe("the sandbox setting", () => {
  it.each([
    [undefined, undefined, "off"],
    [undefined, npm, "registry.npmjs.org"],
    [true, undefined, "(on)"],
    [true, npm, "registry.npmjs.org"],
    [false, npm, "off"],
    [{ allowedDomains: [" Example.COM "] }, npm, "example.com"],
    [{}, npm, "(on)"],
  ] as const)("option %o over agent.md's %o → %s", (option, file, expected) => {
    const s = resolveSandbox(option, file);
    expect(s === undefined ? "off" : s.allowedDomains.join(",") || "(on)").toBe(expected);
  });

  it("refuses, as configuration to fix, a domain in the options that is not a host name", () => {
    expect(() => resolveSandbox({ allowedDomains: ["https://x.com"] }, undefined)).toThrow(
      new ConfigError(
        "sandbox.allowedDomains entry 'https://x.com' is not a host name: write 'example.com' or '*.example.com'",
      ),
    );
  });

  it("is resolved with the other settings: option, then agent.md, then off", () => {
    const main = definitionFromObject("main", { sandbox: true }, "/p").definition;
    expect(main?.surface).toBe("main");
    if (main?.surface !== "main") return;
    expect(resolveSettings({}, main).sandbox).toEqual(DEFAULT_SANDBOX);
    expect(resolveSettings({ sandbox: false }, main).sandbox).toBeUndefined();
    expect(resolveSettings({}, undefined).sandbox).toBeUndefined();
  });

  it.each([
    [undefined, undefined, "off"],
    [undefined, npm, "registry.npmjs.org"],
    [npm, undefined, "registry.npmjs.org"],
    [DEFAULT_SANDBOX, npm, "(on)"],
    [npm, github, "registry.npmjs.org"],
    [github, { allowedDomains: ["api.github.com", "example.com"] }, "api.github.com"],
  ] as const)("a caller's %o joined with a callee's %o → %s", (caller, callee, expected) => {
    const s = joinSandbox(caller, callee);
    expect(s === undefined ? "off" : s.allowedDomains.join(",") || "(on)").toBe(expected);
  });

  const domain = fc.oneof(
    fc.constantFrom("a.com", "b.a.com", "c.b.a.com", "x.org", "a.org"),
    fc.constantFrom("*.a.com", "*.b.a.com", "*.org"),
  );
  const host = fc.constantFrom(
    "a.com",
    "b.a.com",
    "c.b.a.com",
    "x.org",
    "a.org",
    "evil.com",
    "b.a.com.evil.com",
  );

  it("never lets a callee reach a host its sandboxed caller could not, and never turns it off", () => {
    fc.assert(
      fc.property(fc.uniqueArray(domain), fc.option(fc.uniqueArray(domain)), host, (a, b, h) => {
        const caller = { allowedDomains: a };
        const joined = joinSandbox(caller, b === null ? undefined : { allowedDomains: b });
        expect(joined).toBeDefined();
        const reaches = (s: SandboxSetting | undefined) =>
          (s?.allowedDomains ?? []).some((d) => domainMatches(d, h));
        if (reaches(joined)) expect(reaches(caller)).toBe(true);
      }),
    );
  });

  it("reads domains as WebFetch's domain: patterns do", () => {
    expect([
      domainMatches("*.a.com", "b.a.com"),
      domainMatches("*.a.com", "a.com"),
      domainMatches("a.com", "A.com."),
    ]).toEqual([true, false, true]);
    expect([
      domainCovers("*.a.com", "*.b.a.com"),
      domainCovers("*.b.a.com", "*.a.com"),
      domainCovers("*.a.com", "a.com"),
    ]).toEqual([true, false, false]);
  });
});

describe("the sandbox key in definitions", () => {
  const load = (surface: "main" | "agent", fields: object) =>
    definitionFromObject(surface, { name: "x", description: "d", ...fields }, "/p");

  it("takes true, false and a map of options on every surface", () => {
    expect(load("main", { sandbox: true }).definition?.sandbox).toEqual({ allowedDomains: [] });
    expect(load("main", { sandbox: false }).definition?.sandbox).toBeUndefined();
    expect(load("agent", { sandbox: { allowedDomains: ["*.Example.com"] } }).definition?.sandbox).toEqual({
      allowedDomains: ["*.example.com"],
    });
  });

  it("reports a false below agent.md, a domain that is not a host, and an unknown option", () => {
    const brief = (r: ReturnType<typeof load>) =>
      r.diagnostics.map((d) => `${d.severity} ${d.code}: ${d.message}`);
    expect(brief(load("agent", { sandbox: false }))).toEqual([
      "warning sandbox-cannot-turn-off: 'sandbox: false' is ignored: below agent.md the sandbox can only be turned on (this runs sandboxed whenever its caller does)",
    ]);
    const bad = load("main", { sandbox: { allowedDomains: ["https://x.com/"] } });
    expect(bad.definition).toBeUndefined();
    expect(brief(bad)).toEqual([
      "error sandbox-domain: 'sandbox.allowedDomains' entry 'https://x.com/' is not a host name: write 'example.com' or '*.example.com'",
    ]);
    const unknown = load("main", { sandbox: { network: "all" } });
    expect(unknown.definition).toBeUndefined();
    expect(brief(unknown)).toEqual(["error unknown-key: 'sandbox' has an unknown key 'network'"]);
    expect(brief(load("main", { sandbox: "yes" }))).toEqual([
      "error value-type: 'sandbox' must be a boolean or object, got 'yes'",
    ]);
  });
});

describe("the domain proxy", () => {
  it("reads CONNECT targets", () => {
    expect([
      parseTarget("a.com:443"),
      parseTarget("[::1]:80"),
      parseTarget("a.com"),
      parseTarget("a.com:0"),
    ]).toEqual([{ host: "a.com", port: 443 }, { host: "::1", port: 80 }, undefined, undefined]);
  });

  it("refuses a host it does not allow, and removes its socket when closed", async () => {
    const proxy = startDomainProxy((h) => h === "allowed.invalid");
    const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = request({ socketPath: proxy.socketPath, path: "http://denied.invalid/x" }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode, body }));
      });
      req.on("error", reject);
      req.end();
    });
    expect(answer).toEqual({
      status: 403,
      body: "agentmd sandbox: denied.invalid is not allowed: commands reach only the hosts the run's WebFetch (or the sandbox's allowedDomains) allows\n",
    });
    proxy.close();
    const { existsSync } = await import("node:fs");
    expect(existsSync(proxy.socketPath)).toBe(false);
  });
});
