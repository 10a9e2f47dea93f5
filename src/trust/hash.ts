import { nodeCrypto } from "../shared/node-builtins.js";

/** sha256 of `data`, in hex. */
export function sha256(data: string | Buffer): string {
  return nodeCrypto().createHash("sha256").update(data).digest("hex");
}
