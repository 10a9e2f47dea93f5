import type { Server } from "@modelcontextprotocol/sdk/server/index.js";

export function buildServer(kind: string): Server;
export function markStarted(file: string | undefined): void;
