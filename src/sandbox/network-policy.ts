import { decide } from "../permissions/decide.js";
import { offered } from "../permissions/permission-list.js";
import { covers } from "../permissions/tool-matcher.js";
import type { PermissionList, ToolSpecs } from "../permissions/types.js";
import { domainCovers, domainMatches, type SandboxSetting } from "./sandbox-setting.js";

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
 * itself, so every hop's patterns and denies apply), and the sandbox's `allowedDomains` but those
 * a WebFetch deny names. Nothing when neither allows a host. Pure.
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
  const denied = deniedHosts(list);
  const shown = [
    ...(webFetch ? webFetchShown(list, exceptText(denied)) : []),
    ...domains.map((d) => {
      const near = denied.filter((h) => domainCovers(d, h) || domainCovers(h, d));
      return `${d}${exceptText(near)} (sandbox)`;
    }),
  ];
  return {
    kind: "proxy",
    shown,
    allows(host) {
      const call = {
        tool: "WebFetch",
        input: { url: `https://${host.includes(":") ? `[${host}]` : host}/` },
      };
      // A host a WebFetch deny names is out of reach whoever lists it: the deny wins over `allowedDomains`.
      if (decide({ rules: null, deny: hostDenies(list) }, call, { specs, cwd }).kind === "denied")
        return false;
      if (domains.some((d) => domainMatches(d, host))) return true;
      return webFetch && decide(list, call, { specs, cwd }).kind === "allowed";
    },
  };
}

/**
 * The deny rules that name hosts: those with a pattern that bind WebFetch. A bare `WebFetch` deny
 * takes the tool away, and says nothing of the hosts the sandbox's `allowedDomains` name.
 */
function hostDenies(list: PermissionList): PermissionList["deny"] {
  return list.deny.filter((d) => d.constraint && covers(d.tool, "WebFetch"));
}

/** The hosts the denies name, as written (`x.example.com`, `*.example.com`). */
function deniedHosts(list: PermissionList): string[] {
  return hostDenies(list).map((d) => (d.constraint?.text ?? "").replace(/^domain:/, ""));
}

/** ` except a, b`; empty for none. */
const exceptText = (hosts: readonly string[]) => (hosts.length > 0 ? ` except ${hosts.join(", ")}` : "");

/** WebFetch's hosts as its patterns say them, with its denies. */
function webFetchShown(list: PermissionList, except: string): string[] {
  const rules = list.rules?.filter((r) => covers(r.tool, "WebFetch")) ?? null;
  const any = rules === null || rules.some((r) => r.constraints.length === 0);
  const hosts = any
    ? ["any host"]
    : rules.map((r) => r.constraints.map((c) => c.text.replace(/^domain:/, "")).join(" ∧ "));
  return hosts.map((h) => `${h}${except} (WebFetch)`);
}
