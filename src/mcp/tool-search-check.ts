import type { Definition, Diagnostic } from "../definitions/types.js";
import { type DefinitionListContext, definitionList } from "../permissions/definition-list.js";
import { intersect, offered, UNRESTRICTED } from "../permissions/permission-list.js";
import { mayOfferPrefix } from "../permissions/prefix-reach.js";
import type { PermissionList } from "../permissions/types.js";
import type { ProjectServers } from "./project-servers.js";
import { serverPrefix } from "./server-spec.js";

/**
 * `agentmd check`: a list that allows tools of a server marked `defer: true` but not ToolSearch
 * leaves the model no way to find them. Judged for agent.md and for each subagent under agent.md
 * (whose runs start there); deferral past the size threshold is known only at run time.
 */
export function toolSearchDiagnostics(
  definitions: readonly Definition[],
  servers: ProjectServers,
  ctx: DefinitionListContext,
): Diagnostic[] {
  const main = definitions.find((d) => d.surface === "main");
  const top = main ? definitionList(main, ctx) : UNRESTRICTED;
  const out: Diagnostic[] = [];
  const judge = (
    def: Definition,
    list: PermissionList,
    scope: readonly { name: string; config: { defer?: boolean } }[],
  ) => {
    const deferred = scope.filter(
      (s) => s.config.defer === true && mayOfferPrefix(list, serverPrefix(s.name)),
    );
    if (deferred.length === 0 || offered(list, ["ToolSearch"]).length > 0) return;
    const at = def.allowedTools?.at ?? { file: def.file, line: 1, column: 1 };
    out.push({
      ...at,
      severity: "warning",
      code: "deferred-without-tool-search",
      surface: def.surface,
      message: `this list allows tools of ${deferred.map((s) => `'${s.name}'`).join(", ")} (defer: true) but not ToolSearch, so the model cannot find them; add ToolSearch`,
    });
  };
  if (main) judge(main, top, servers.project);
  for (const d of definitions) {
    if (d.surface !== "agent" || !d.allowedTools) continue;
    judge(d, intersect(top, definitionList(d, ctx)), [...servers.project, ...servers.inlineOf(d)]);
  }
  return out;
}
