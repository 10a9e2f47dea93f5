import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const log = process.env.AGENTMD_IMPORTS_LOG;
  if (log && (resolved.url.startsWith("file:") || resolved.url.startsWith("node:")))
    appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
