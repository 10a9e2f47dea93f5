import type { ServerListing } from "./listing.js";

export type Started =
  | { ok: true; listing: ServerListing }
  | { ok: false; message: string /** the caller's signal ended the wait */; interrupted?: true };
