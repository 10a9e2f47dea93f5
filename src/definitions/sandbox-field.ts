import type { DiagnosticSink } from "./diagnostics.js";
import type { SandboxSetting, Surface } from "./types.js";
import type { Field } from "./yaml-fields.js";

/** `example.com` or `*.example.com`: what WebFetch's `domain:` patterns accept. */
const DOMAIN = /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*\.?$/i;

/** Whether a sandbox domain is a host name, or `*.` and one. */
export const isDomainPattern = (d: string): boolean => DOMAIN.test(d.trim());

/**
 * `sandbox` once its shape has passed the schema: `true` or a map turns the sandbox on,
 * `false` leaves it off. Below agent.md a definition can only turn it on: its `false` is said and
 * ignored, since a subagent, skill or command runs sandboxed whenever its caller does. A domain
 * that is not a host name is an error: a list of hosts agentmd cannot read must not be guessed at.
 */
export function readSandboxField(
  field: Field | undefined,
  value: unknown,
  surface: Surface,
  sink: DiagnosticSink,
): SandboxSetting | undefined {
  if (field === undefined || value === undefined || value === null) return undefined;
  const report = sink.at(field.valuePos);
  if (value === false) {
    if (surface !== "main")
      report(
        "warning",
        "sandbox-cannot-turn-off",
        "'sandbox: false' is ignored: below agent.md the sandbox can only be turned on (this runs sandboxed whenever its caller does)",
      );
    return undefined;
  }
  if (value === true) return { allowedDomains: [] };
  const domains = (value as { allowedDomains?: unknown }).allowedDomains;
  const list = Array.isArray(domains) ? domains.filter((d): d is string => typeof d === "string") : [];
  for (const [i, d] of list.entries()) {
    if (!isDomainPattern(d))
      sink.add(
        "error",
        "sandbox-domain",
        `'sandbox.allowedDomains' entry '${d}' is not a host name: write 'example.com' or '*.example.com'`,
        ...position(field, i),
      );
  }
  return { allowedDomains: list.map((d) => d.trim().toLowerCase()) };
}

function position(field: Field, i: number): [number, number] {
  const pos = field.locate(["allowedDomains", i]);
  return [pos.line, pos.column];
}
