/**
 * The little of express that the OAuth test server (mcp-oauth.ts) uses: express ships no types,
 * and the MCP SDK's authorization server is made of express handlers.
 */
declare module "express" {
  import type { IncomingMessage, Server, ServerResponse } from "node:http";

  export interface Request extends IncomingMessage {
    readonly path: string;
    readonly originalUrl: string;
  }
  export interface Response extends ServerResponse {
    redirect(url: string): void;
  }
  export type NextFunction = (error?: unknown) => void;
  export type RequestHandler = (req: Request, res: Response, next: NextFunction) => void;
  export type Router = RequestHandler;
  export interface Express extends RequestHandler {
    use(...handlers: RequestHandler[]): Express;
    all(path: string, ...handlers: RequestHandler[]): Express;
    listen(port: number, host: string, ready: () => void): Server;
  }
  const express: () => Express;
  export default express;
}
