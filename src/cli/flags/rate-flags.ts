import type { PerMinute } from "../../batch/rate-limit.js";
import type { OptionTable } from "./option-table.js";
import { UsageError } from "./usage-error.js";

/** The options `batch` and `worker` take for the rate limit. */
export const RATE_OPTIONS = {
  rpm: { type: "string", value: "N", help: "requests per minute all the runs send together" },
  tpm: { type: "string", value: "N", help: "input and output tokens per minute, as --rpm" },
} as const satisfies OptionTable;

/**
 * `--rpm N` and `--tpm N`: limits given instead of learnt from the API's rate-limit headers.
 * Throws `UsageError` for anything but a whole number from 1 up.
 */
export function rateFlags(values: { rpm?: string | undefined; tpm?: string | undefined }): PerMinute {
  const of = (flag: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (text.trim() === "" || !Number.isInteger(n) || n < 1 || n > 1e12)
      throw new UsageError(`--${flag} must be a whole number per minute, at least 1, not '${text}'`);
    return n;
  };
  const requests = of("rpm", values.rpm);
  const tokens = of("tpm", values.tpm);
  return {
    ...(requests !== undefined && { requests }),
    ...(tokens !== undefined && { tokens }),
  };
}
