// Preloaded with `node --import` (NODE_OPTIONS): every OpenTelemetry module the process resolves is
// appended to the file AGENTMD_IMPORTS_LOG names, so that a test can tell what a run loaded.
import { register } from "node:module";

register("./log-imports-hooks.mjs", import.meta.url);
