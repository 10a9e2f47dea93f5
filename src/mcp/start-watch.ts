import type { McpTransport } from "../definitions/types.js";

/**
 * Told of a server's start (a traced run's: its span). `traceparent`: the context a stdio server is
 * started in; `done`: what it offers, or why it did not start.
 */
export interface StartWatch {
  starting(server: { readonly server: string; readonly transport: McpTransport }): {
    readonly traceparent?: string;
    done(r: { readonly tools?: number; readonly prompts?: number; readonly error?: string }): void;
  };
}
