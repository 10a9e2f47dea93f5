import type { Elicit, ElicitationAnswer } from "../../mcp/elicitation.js";
import type { SdkChannel } from "./sdk-channel.js";

/**
 * A server's question, asked of the SDK program (`control_request` subtype `elicitation`, as the
 * Agent SDK sends it to `onElicitation`; a program without one has the SDK answer `decline`).
 * An answer that is not one the protocol knows, or a failed request, cancels.
 */
export function sdkElicit(channel: SdkChannel): Elicit {
  return async (request, signal) => {
    let r: Record<string, unknown>;
    try {
      r = await channel.request(
        {
          subtype: "elicitation",
          mcp_server_name: request.server,
          message: request.message,
          mode: "form",
          requested_schema: request.requestedSchema,
        },
        signal,
      );
    } catch {
      return { action: "cancel" };
    }
    const action = r.action;
    if (action !== "accept" && action !== "decline" && action !== "cancel") return { action: "cancel" };
    const content = r.content;
    return action === "accept" && typeof content === "object" && content !== null && !Array.isArray(content)
      ? { action, content: content as ElicitationAnswer["content"] & object }
      : { action };
  };
}
