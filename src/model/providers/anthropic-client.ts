import { BaseAnthropic, type ClientOptions } from "@anthropic-ai/sdk/client";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";

/**
 * The Anthropic API's client as the model seam uses it: the SDK's client core (requests, headers,
 * auth, errors) and its Messages resource. Imported statically here, and this module lazily, so
 * that the bundle keeps only what is used: the SDK's full client carries every other resource of
 * the API (about a megabyte of code a run would parse before its first request).
 */
export function anthropicClient(options: ClientOptions): BaseAnthropic & { readonly messages: Messages } {
  const client = new BaseAnthropic(options);
  return Object.assign(client, { messages: new Messages(client) });
}
