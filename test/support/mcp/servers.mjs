// MCP servers the test suite runs for real, written with the SDK's low-level Server class so that
// their schemas are exactly the JSON given here (hostile ones included). One module, several kinds:
// stdio-server.mjs runs one of them as a process; test/support/mcp-http.ts serves them over HTTP.
import { writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { buildExtrasServer } from "./extras-server.mjs";

const text = (t) => ({ content: [{ type: "text", text: t }] });
const obj = (properties, required = []) => ({ type: "object", properties, required });

const whoami = {
  def: {
    name: "whoami",
    description: "Says which process answers.",
    inputSchema: obj({}),
    annotations: { readOnlyHint: true },
  },
  run: () => text(`pid ${process.pid}`),
};
const echo = {
  def: {
    name: "echo",
    description: "Echoes its arguments as JSON.",
    inputSchema: obj({ text: { type: "string" } }),
  },
  run: (args) => text(JSON.stringify(args)),
};

const LONG_KEY = `k${"x".repeat(79)}`;
const cyclic = {
  $defs: { node: obj({ label: { type: "string" }, child: { $ref: "#/$defs/node" } }) },
  ...obj({ tree: { $ref: "#/$defs/node" } }, ["tree"]),
};

/** Tools by kind: each a definition and what a call does (`extra` is the SDK's request context). */
function toolsOf(kind) {
  const many = /^many:(\d+)$/.exec(kind);
  if (many) return manyTools(Number(many[1]));
  switch (kind) {
    case "github":
      return [
        {
          def: {
            name: "get_issue",
            description: "Gets one issue of the repository by its number.",
            inputSchema: obj({ number: { type: "integer" } }, ["number"]),
            annotations: { readOnlyHint: true },
          },
          run: (a) => text(`issue #${a.number}: the build is red`),
        },
        {
          def: {
            name: "list_issues",
            description: "Lists the open issues.",
            inputSchema: obj({}),
            annotations: { readOnlyHint: true },
          },
          run: () => text("#1 the build is red\n#2 docs are stale"),
        },
        {
          def: {
            name: "create_issue",
            description: "Opens a new issue.",
            inputSchema: obj({ title: { type: "string" } }, ["title"]),
          },
          run: (a) => text(`created #3: ${a.title}`),
        },
        whoami,
      ];
    case "crashy":
      return [
        {
          def: { name: "crash", description: "Dies in the middle of the call.", inputSchema: obj({}) },
          run: () => {
            process.stderr.write("crashy: the database is gone, giving up\n");
            setImmediate(() => process.exit(3));
            return new Promise(() => {});
          },
        },
        whoami,
        echo,
      ];
    case "hangs":
      return [
        {
          def: { name: "hang", description: "Never answers.", inputSchema: obj({}) },
          run: () => {
            process.stderr.write("hangs: waiting forever\n");
            return new Promise(() => {});
          },
        },
        whoami,
        echo,
      ];
    case "hostile":
      return [
        {
          def: {
            name: "odata_query",
            description: "Queries with OData keys.",
            inputSchema: obj(
              {
                $top: { type: "integer" },
                "@odata.type": { type: "string" },
                [LONG_KEY]: { type: "string" },
                filter: obj({ $eq: { type: "string" } }),
              },
              ["$top"],
            ),
          },
          run: (a) => text(JSON.stringify(a)),
        },
        {
          def: {
            name: `n${"a".repeat(99)}`,
            description: "A tool with a 100-character name.",
            inputSchema: obj({}),
          },
          run: () => text("long name called"),
        },
        {
          def: {
            name: `n${"b".repeat(129)}`,
            description: "A tool with a 130-character name.",
            inputSchema: obj({}),
          },
          run: () => text("longer name called"),
        },
        {
          def: { name: "tree", description: "Walks a tree.", inputSchema: cyclic },
          run: (a) => text(JSON.stringify(a)),
        },
        {
          def: { name: "odd.name/with spaces", description: "Odd name.", inputSchema: obj({}) },
          run: () => text("odd"),
        },
      ];
    case "traced":
      return [
        {
          def: {
            name: "trace_context",
            description: "Says the trace context the call came with, and the one the server started in.",
            inputSchema: obj({}),
          },
          run: (_a, extra) =>
            text(JSON.stringify({ meta: extra._meta ?? null, env: process.env.TRACEPARENT ?? null })),
        },
      ];
    case "timing":
      return timingTools();
    case "big":
      return bigTools();
    case "noisy":
      return [
        {
          def: { name: "flood", description: "Floods the client, then answers.", inputSchema: obj({}) },
          run: async (_a, extra) => {
            const note = { method: "notifications/tools/list_changed" };
            for (let i = 0; i < 5_000; i++) void extra.sendNotification(note);
            const lines = `${"e".repeat(1023)}\n`.repeat(64);
            for (let i = 0; i < 8 * 16; i++) process.stderr.write(lines);
            return text("flooded");
          },
        },
        whoami,
      ];
    default:
      return [whoami, echo];
  }
}

/**
 * `hang` never answers (it writes `mark` when it has the call, and notes when the client cancels
 * it); `after_cancel` answers once a `hang` call was cancelled; `fast` answers at once.
 */
function timingTools() {
  let cancelled;
  const wasCancelled = new Promise((resolve) => {
    cancelled = resolve;
  });
  return [
    {
      def: { name: "hang", description: "Never answers.", inputSchema: obj({ mark: { type: "string" } }) },
      run: (a, extra) => {
        if (a.mark) writeFileSync(a.mark, "received\n");
        extra.signal.addEventListener("abort", () => cancelled());
        return new Promise(() => {});
      },
    },
    {
      def: { name: "after_cancel", description: "Answers after a hang was cancelled.", inputSchema: obj({}) },
      run: async () => {
        await wasCancelled;
        return text("answered after the other call was cancelled");
      },
    },
    { def: { name: "fast", description: "Answers at once.", inputSchema: obj({}) }, run: () => text("fast") },
  ];
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const png = (bytes) => Buffer.concat([PNG_SIGNATURE, Buffer.alloc(bytes - 8)]).toString("base64");

/** Answers larger than the model API takes: an 8 MB PNG, 50 MB of text; and a small PNG. */
function bigTools() {
  const image = (bytes) => ({ content: [{ type: "image", mimeType: "image/png", data: png(bytes) }] });
  return [
    {
      def: { name: "png_8mb", description: "An 8 MB image.", inputSchema: obj({}) },
      run: () => image(8 << 20),
    },
    {
      def: { name: "png_small", description: "A 1 KB image.", inputSchema: obj({}) },
      run: () => image(1024),
    },
    {
      def: { name: "text_50mb", description: "50 MB of text.", inputSchema: obj({}) },
      run: () => text("x".repeat(50 << 20)),
    },
    whoami,
  ];
}

function manyTools(n) {
  return Array.from({ length: n }, (_, i) => ({
    def: {
      name: `tool_${String(i).padStart(3, "0")}`,
      description: `Tool number ${i}: reads or changes records of kind ${i % 17} in the inventory service, with paging and filters.`,
      inputSchema: obj(
        {
          id: { type: "string", description: "The record's identifier." },
          page: { type: "integer", description: "Which page of results to return." },
          filter: obj({ field: { type: "string" }, value: { type: "string" } }),
          fields: { type: "array", items: { type: "string" }, description: "Fields to include." },
        },
        ["id"],
      ),
      annotations: { readOnlyHint: i % 2 === 0 },
    },
    run: (a) => text(`tool ${i} on ${a.id}`),
  }));
}

const PROMPTS = {
  github: [
    {
      def: {
        name: "summarize_issue",
        description: "Summarises an issue.",
        arguments: [{ name: "number", required: true }, { name: "tone" }],
      },
      run: (a) => ({
        messages: [
          {
            role: "user",
            content: { type: "text", text: `Summarise issue #${a.number} in a ${a.tone ?? "plain"} tone.` },
          },
        ],
      }),
    },
  ],
};

/** A fresh server of one kind (a server object serves one connection). */
export function buildServer(kind) {
  if (kind === "extras") return buildExtrasServer();
  const tools = toolsOf(kind);
  const prompts = PROMPTS[kind] ?? [];
  const server = new Server(
    { name: `test-${kind}`, version: "1.0.0" },
    { capabilities: { tools: { listChanged: true }, ...(prompts.length && { prompts: {} }) } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((t) => t.def) }));
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => {
    const tool = tools.find((t) => t.def.name === req.params.name);
    if (!tool) return { ...text(`no tool ${req.params.name}`), isError: true };
    return tool.run(req.params.arguments ?? {}, extra);
  });
  if (prompts.length) {
    server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: prompts.map((p) => p.def) }));
    server.setRequestHandler(GetPromptRequestSchema, (req) => {
      const p = prompts.find((x) => x.def.name === req.params.name);
      return p.run(req.params.arguments ?? {});
    });
  }
  return server;
}

/** Marks that a server of this kind started (tests check which servers a run started). */
export function markStarted(file) {
  if (file) writeFileSync(file, `${process.pid}\n`, { flag: "a" });
}
