/**
 * agentmd's names for the conversation data the loop, tools and runs pass around. They are the
 * Messages API's shapes today (the loop speaks them as data); every layer above `model/` imports
 * them from here, so a provider change is a change to this file and the provider's, not tree-wide.
 */
export type {
  ContentBlock,
  ContentBlockParam,
  Message,
  MessageCreateParamsStreaming,
  MessageParam,
  StopReason,
  ToolResultBlockParam,
  ToolUnion,
} from "@anthropic-ai/sdk/resources/messages";
