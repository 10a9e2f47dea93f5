import type { Runner } from "../../invocation/runner.js";
import { SessionError } from "../../loop/transcript.js";
import { nodeCrypto } from "../../shared/node-builtins.js";
import { answer, type SdkChannel, type SdkRequest, type SdkUserMessage } from "./sdk-channel.js";

/** The Agent SDK's `enableFileCheckpointing` reaches the CLI as this variable. */
export const SDK_CHECKPOINTING = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING";

/** Whether the SDK turned file checkpointing on (off unless it did, as Claude Code under the SDK). */
export const checkpointingOn = (env: Readonly<Record<string, string | undefined>>): boolean =>
  /^(1|true|yes|on)$/i.test(env[SDK_CHECKPOINTING] ?? "");

/** The id of a user message (its own `uuid`, else a new one): what `rewindFiles` names it by. */
export const promptIdOf = (m: SdkUserMessage): string => {
  const given = (m as { uuid?: unknown }).uuid;
  return typeof given === "string" && given !== "" ? given : nodeCrypto().randomUUID();
};

/** What the `rewind_files` request reads of the session. */
export interface RewindLive {
  readonly runner?: Runner;
  readonly session?: string;
  readonly checkpoints: boolean;
}

/**
 * `rewindFiles(userMessageId, { dryRun })`: the files as they were just before that user message
 * (`rewind_files`). An error when checkpointing is off; `canRewind: false` with why when the
 * message is not known or has no checkpoint.
 */
export async function rewindFilesRequest(
  r: SdkRequest,
  channel: SdkChannel,
  live: RewindLive,
): Promise<void> {
  const id = r.request.user_message_id;
  const dryRun = r.request.dry_run === true;
  if (!live.checkpoints)
    return answer(
      channel,
      r.request_id,
      new Error("file checkpointing is not enabled: start the query with enableFileCheckpointing: true"),
    );
  if (typeof id !== "string" || id === "")
    return answer(channel, r.request_id, new Error("rewind_files needs a user_message_id"));
  if (!live.runner || !live.session)
    return answer(channel, r.request_id, { canRewind: false, error: "no session to rewind yet" });
  try {
    const report = await live.runner.rewind(live.session, {
      to: { promptId: id },
      code: true,
      conversation: false,
      ...(dryRun && { dryRun: true }),
    });
    if (!report.ok) return answer(channel, r.request_id, { canRewind: false, error: report.message });
    const f = report.files;
    const skipped = f?.skipped ?? [];
    answer(channel, r.request_id, {
      canRewind: true,
      filesChanged: [...(f?.restored ?? []), ...(f?.removed ?? [])],
      insertions: f?.insertions ?? 0,
      deletions: f?.deletions ?? 0,
      ...(!dryRun && { skippedLinks: skipped.filter((s) => s.reason === "link").length }),
      ...(skipped.length > 0 && {
        skipped: skipped.map((s) => ({ file: s.file, reason: s.reason, why: s.why })),
      }),
      ...(report.bashPrompts.length > 0 && { note: "what Bash changed is not in the checkpoints" }),
    });
  } catch (e) {
    if (!(e instanceof SessionError)) throw e;
    answer(channel, r.request_id, { canRewind: false, error: e.message });
  }
}
