import { domainPatternOf } from "./subject-specs.js";
import { covers } from "./tool-matcher.js";
import type { Constraint, PermissionList } from "./types.js";

/**
 * What a list lets a server-side web search reach, as the Messages API can say it: no filter,
 * results only from some domains, or from all but some (the API takes one kind of list or the
 * other, never both), or nothing it can say (the search is then not offered).
 */
export type SearchDomains =
  | { readonly kind: "any" }
  | { readonly kind: "allowed"; readonly domains: readonly string[] }
  | { readonly kind: "blocked"; readonly domains: readonly string[] }
  | { readonly kind: "none" };

/** The hosts a `domain:` pattern covers: `base` and its subdomains, or (apex false) its subdomains only. */
interface Sites {
  readonly base: string;
  readonly apex: boolean;
}

const NONE: SearchDomains = { kind: "none" };

/**
 * The domain filter of `tool`'s searches under `list` (rules in `searchDomainRule`'s meaning). An API
 * domain covers itself and its subdomains, so what a list allows is said exactly when each allowed
 * pattern names a whole site; anything else is left out, never widened: subdomains-only patterns,
 * and (when the list also allows only some domains) every allowed domain a deny rule touches. With
 * no allow restriction, deny rules become blocked domains (a `*.` deny blocks the site's apex too).
 * Pure.
 */
export function searchDomains(list: PermissionList, tool: string): SearchDomains {
  if (list.deny.some((d) => !d.constraint && covers(d.tool, tool))) return NONE;
  const denied: Sites[] = [];
  for (const d of list.deny) {
    if (!d.constraint || !covers(d.tool, tool)) continue;
    const sites = sitesOf(d.constraint);
    // A deny pattern that cannot be interpreted denies every search.
    if (!sites) return NONE;
    denied.push(sites);
  }
  const allowed = allowedDomains(list, tool);
  if (allowed === "any") {
    const blocked = outermost(denied.map((s) => s.base));
    return blocked.length > 0 ? { kind: "blocked", domains: blocked } : { kind: "any" };
  }
  const domains = outermost(allowed.filter((a) => !denied.some((d) => related(a, d.base))));
  return domains.length > 0 ? { kind: "allowed", domains } : NONE;
}

/** The whole sites the allow rules of `tool` name, or `any` when one of them is unrestricted. */
function allowedDomains(list: PermissionList, tool: string): "any" | string[] {
  if (list.rules === null) return "any";
  const out: string[] = [];
  for (const rule of list.rules) {
    if (!covers(rule.tool, tool)) continue;
    if (rule.constraints.length === 0) return "any";
    let sites: Sites | null | undefined = sitesOf(rule.constraints[0] as Constraint);
    for (const c of rule.constraints.slice(1)) sites = sites ? meet(sites, sitesOf(c)) : sites;
    if (sites?.apex) out.push(sites.base);
  }
  return out;
}

function sitesOf(c: Constraint): Sites | undefined {
  if (c.kind !== "custom") return undefined;
  const p = domainPatternOf(c.text);
  return { base: p.host, apex: !p.subdomainsOnly };
}

/** `host` is `domain` or one of its subdomains. */
const under = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/** Two domains whose sites share a host. */
const related = (a: string, b: string) => under(a, b) || under(b, a);

/** The hosts both cover: null when none; undefined when one cannot be read. */
function meet(a: Sites, b: Sites | undefined): Sites | null | undefined {
  if (!b) return undefined;
  if (a.base === b.base) return { base: a.base, apex: a.apex && b.apex };
  if (under(a.base, b.base)) return a;
  if (under(b.base, a.base)) return b;
  return null;
}

/** Domains without those another already covers, sorted. */
function outermost(domains: readonly string[]): string[] {
  const unique = [...new Set(domains)];
  return unique.filter((d) => !unique.some((o) => o !== d && under(d, o))).sort();
}
