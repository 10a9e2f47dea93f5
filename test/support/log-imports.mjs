// Preloaded with `node --import` (NODE_OPTIONS): every module the process resolves through the ES
// module loader (the bundle's chunks, the packages it leaves external) is appended to the file
// AGENTMD_IMPORTS_LOG names, so that a test can tell what a command loaded.
import { register } from "node:module";

register("./log-imports-hooks.mjs", import.meta.url);
