// An MCP server beyond tools, written with the SDK's McpServer: prompts, resources, a tool that asks
// the user (elicitation), one that lists the client's roots, and one that adds a prompt later (the
// SDK sends `notifications/prompts/list_changed`). Kind `extras` of servers.mjs: stdio-server.mjs
// serves it over stdio, test/support/mcp-http.ts over streamable HTTP.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

const text = (t) => ({ content: [{ type: "text", text: t }] });

export function buildExtrasServer() {
  const server = new McpServer({ name: "test-extras", version: "1.0.0" });
  server.registerPrompt(
    "review",
    {
      description: "Reviews a file for bugs.",
      argsSchema: { file: z.string().describe("the file to review"), focus: z.string().optional() },
    },
    ({ file, focus }) => ({
      messages: [
        {
          role: "user",
          content: { type: "text", text: `Review ${file} closely${focus ? ` for ${focus}` : ""}.` },
        },
      ],
    }),
  );
  server.registerResource(
    "guide",
    "docs://guide",
    { description: "The style guide.", mimeType: "text/markdown" },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/markdown", text: "GUIDE: tabs, never spaces." }],
    }),
  );
  server.registerResource("logo", "docs://logo", { mimeType: "application/octet-stream" }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: "application/octet-stream", blob: "AAEC" }],
  }));
  server.registerTool("ask_name", { description: "Asks the user their name.", inputSchema: {} }, async () => {
    const r = await server.server.elicitInput({
      message: "What is your name?",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", description: "Your name" },
          tea: { type: "boolean", description: "Tea?" },
        },
        required: ["name"],
      },
    });
    return text(`elicitation: ${r.action}${r.content ? ` ${JSON.stringify(r.content)}` : ""}`);
  });
  server.registerTool(
    "show_roots",
    { description: "Lists the client's roots.", inputSchema: {} },
    async () => {
      const r = await server.server.listRoots();
      return text(`roots: ${JSON.stringify(r.roots)}`);
    },
  );
  server.registerTool("add_prompt", { description: "Adds the prompt 'later'.", inputSchema: {} }, () => {
    server.registerPrompt("later", { description: "Added later." }, () => ({
      messages: [{ role: "user", content: { type: "text", text: "The later prompt speaks." } }],
    }));
    return text("added the prompt 'later'");
  });
  return server;
}
