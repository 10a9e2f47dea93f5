import type { Server } from "@modelcontextprotocol/sdk/server/index.js";

export function buildServer(kind: string): Pick<Server, "connect" | "close">;
export function markStarted(file: string | undefined): void;
