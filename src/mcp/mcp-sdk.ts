/**
 * The MCP SDK, loaded the first time a server is started: a run that reaches no server never pays
 * for it (or for zod, which it brings) at start-up.
 */
export interface McpSdk {
  readonly Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  readonly SseError: typeof import("@modelcontextprotocol/sdk/client/sse.js").SseError;
  readonly SSEClientTransport: typeof import("@modelcontextprotocol/sdk/client/sse.js").SSEClientTransport;
  readonly StdioClientTransport: typeof import("@modelcontextprotocol/sdk/client/stdio.js").StdioClientTransport;
  readonly StreamableHTTPClientTransport: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport;
  readonly StreamableHTTPError: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPError;
  readonly McpError: typeof import("@modelcontextprotocol/sdk/types.js").McpError;
  readonly ErrorCode: typeof import("@modelcontextprotocol/sdk/types.js").ErrorCode;
  readonly auth: typeof import("@modelcontextprotocol/sdk/client/auth.js").auth;
  readonly UnauthorizedError: typeof import("@modelcontextprotocol/sdk/client/auth.js").UnauthorizedError;
  readonly OAuthError: typeof import("@modelcontextprotocol/sdk/server/auth/errors.js").OAuthError;
  readonly deserializeMessage: typeof import("@modelcontextprotocol/sdk/shared/stdio.js").deserializeMessage;
}

let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= (async () => {
    const [client, sse, stdio, http, types, lines, auth, authErrors] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js"),
      import("@modelcontextprotocol/sdk/client/sse.js"),
      import("@modelcontextprotocol/sdk/client/stdio.js"),
      import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      import("@modelcontextprotocol/sdk/types.js"),
      import("@modelcontextprotocol/sdk/shared/stdio.js"),
      import("@modelcontextprotocol/sdk/client/auth.js"),
      import("@modelcontextprotocol/sdk/server/auth/errors.js"),
    ]);
    return {
      Client: client.Client,
      SseError: sse.SseError,
      SSEClientTransport: sse.SSEClientTransport,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      StreamableHTTPError: http.StreamableHTTPError,
      McpError: types.McpError,
      ErrorCode: types.ErrorCode,
      auth: auth.auth,
      UnauthorizedError: auth.UnauthorizedError,
      OAuthError: authErrors.OAuthError,
      deserializeMessage: lines.deserializeMessage,
    };
  })();
  return loading;
}
