import { createHash } from "node:crypto";

/** sha256 of `data`, in hex. */
export function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}
