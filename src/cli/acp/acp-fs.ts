import type { AgentContext } from "@agentclientprotocol/sdk";
import { looksBinary, NODE_FS, type ToolFs } from "../../tools/builtin/fs.js";

/**
 * The file system of Read, Write and Edit when the editor offers its own (`fs/read_text_file`,
 * `fs/write_text_file`): the model reads the editor's buffer, unsaved changes included, and an edit
 * lands in the editor. Only the calls the lists and approvals let run get here; folders, binary
 * files and what the editor cannot answer stay on the disk.
 */
export function editorFs(
  client: AgentContext,
  sessionId: string,
  can: { readonly read: boolean; readonly write: boolean },
): ToolFs {
  const { readStream: _, ...disk } = NODE_FS;
  // What the editor holds that the disk may not yet (a new file in an unsaved buffer), as a file.
  const held = new Map<string, { size: number; mtimeMs: number }>();
  return {
    ...disk,
    async stat(p) {
      try {
        return await NODE_FS.stat(p);
      } catch (e) {
        const h = held.get(p);
        if (!h) throw e;
        return { isFile: () => true, isDirectory: () => false, ...h };
      }
    },
    async readFile(p) {
      if (!can.read) return NODE_FS.readFile(p);
      const saved = await NODE_FS.readFile(p).catch(() => undefined);
      if (saved && looksBinary(saved)) return saved;
      try {
        const r = await client.request("fs/read_text_file", { sessionId, path: p });
        return Buffer.from(r.content, "utf8");
      } catch (e) {
        if (saved) return saved;
        throw Object.assign(new Error(`the editor could not read ${p}: ${(e as Error).message}`), {
          code: "ENOENT",
        });
      }
    },
    async writeFile(p, data) {
      if (!can.write) return NODE_FS.writeFile(p, data);
      await client.request("fs/write_text_file", { sessionId, path: p, content: data });
      held.set(p, { size: Buffer.byteLength(data), mtimeMs: Date.now() });
    },
  };
}
