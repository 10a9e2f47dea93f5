import { decide } from "../permissions/decide.js";
import { offered } from "../permissions/permission-list.js";
import { covers } from "../permissions/tool-matcher.js";
import type { PermissionList, ToolSpecs } from "../permissions/types.js";
import { domainMatches, type SandboxSetting } from "./sandbox-setting.js";

/**
 * What commands may reach. `none`: no network at all (a namespace with only its own loopback).
 * `proxy`: HTTP and HTTPS only, through the runner's proxy, to the hosts `allows` admits.
 */
export type NetworkPolicy =
  | { readonly kind: "none" }
  | {
      readonly kind: "proxy";
      /** What may be reached, as a reader would write it: `example.com (WebFetch)`, `any host (WebFetch)`. */
      readonly shown: readonly string[];
      allows(host: string): boolean;
    };

const NONE: NetworkPolicy = { kind: "none" };

/**
 * The network of a sandboxed command: the hosts the run's WebFetch may fetch (judged by `decide`
 * itself, so every hop's patterns and denies apply), and the sandbox's `allowedDomains`. Nothing
 * when neither allows a host. Pure.
 */
export function networkPolicy(
  list: PermissionList,
  setting: SandboxSetting,
  specs: ToolSpecs,
  cwd: string,
): NetworkPolicy {
  const webFetch = offered(list, ["WebFetch"]).length > 0;
  const domains = setting.allowedDomains;
  if (!webFetch && domains.length === 0) return NONE;
  const shown = [...(webFetch ? webFetchShown(list) : []), ...domains.map((d) => `${d} (sandbox)`)];
  return {
    kind: "proxy",
    shown,
    allows(host) {
      if (domains.some((d) => domainMatches(d, host))) return true;
      if (!webFetch) return false;
      const url = `https://${host.includes(":") ? `[${host}]` : host}/`;
      return decide(list, { tool: "WebFetch", input: { url } }, { specs, cwd }).kind === "allowed";
    },
  };
}

/** WebFetch's hosts as its patterns say them, with its denies. */
function webFetchShown(list: PermissionList): string[] {
  const rules = list.rules?.filter((r) => covers(r.tool, "WebFetch")) ?? null;
  const any = rules === null || rules.some((r) => r.constraints.length === 0);
  const hosts = any
    ? ["any host"]
    : rules.map((r) => r.constraints.map((c) => c.text.replace(/^domain:/, "")).join(" ∧ "));
  const denies = list.deny
    .filter((d) => d.constraint && covers(d.tool, "WebFetch"))
    .map((d) => d.constraint?.text.replace(/^domain:/, ""));
  const except = denies.length > 0 ? ` except ${denies.join(", ")}` : "";
  return hosts.map((h) => `${h}${except} (WebFetch)`);
}
