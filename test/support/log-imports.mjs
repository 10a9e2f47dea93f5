// Preloaded with `node --import` (NODE_OPTIONS): every module the process loads is appended to the
// file AGENTMD_IMPORTS_LOG names, so that a test can tell what a command loaded: what the ES module
// loader resolves (the bundle's chunks, the packages it leaves external), the CommonJS files a
// require() compiles or the launcher compiles itself (vm.Script: `check`'s own file), and Node's
// own modules a require() loads (as `node:NAME (required)`: importing one instead builds its whole
// namespace, which a test may tell apart).
import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";
import { pathToFileURL } from "node:url";
import vm from "node:vm";

register("./log-imports-hooks.mjs", import.meta.url);

const log = (url) => {
  if (process.env.AGENTMD_IMPORTS_LOG) appendFileSync(process.env.AGENTMD_IMPORTS_LOG, `${url}\n`);
};
const load = Module._load;
Module._load = function (request, ...rest) {
  if (Module.isBuiltin(request))
    log(`${request.startsWith("node:") ? request : `node:${request}`} (required)`);
  return load.call(this, request, ...rest);
};
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  log(pathToFileURL(filename).href);
  return compile.call(this, content, filename);
};
vm.Script = class extends vm.Script {
  constructor(code, options) {
    if (options?.filename) log(pathToFileURL(options.filename).href);
    super(code, options);
  }
};
