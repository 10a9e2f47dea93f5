// Node's own modules that only a tool's or a run's work needs, loaded with that work. A static
// import of node:child_process, node:crypto or node:fs/promises makes every command's start-up load
// the module and what it loads in turn (net, streams, readline, the whole of crypto), and `check`,
// `tools` and `audit` use none of them. A run loads node:http and node:net only for the sandbox's
// domain proxy.
import type * as ChildProcessModule from "node:child_process";
import type * as CryptoModule from "node:crypto";
import type * as FsPromisesModule from "node:fs/promises";
import type * as HttpModule from "node:http";
import { createRequire } from "node:module";
import type * as NetModule from "node:net";

const nodeRequire = createRequire(import.meta.url);

export const childProcess = (): typeof ChildProcessModule => nodeRequire("node:child_process");
export const nodeCrypto = (): typeof CryptoModule => nodeRequire("node:crypto");
export const fsPromises = (): typeof FsPromisesModule => nodeRequire("node:fs/promises");
export const nodeHttp = (): typeof HttpModule => nodeRequire("node:http");
export const nodeNet = (): typeof NetModule => nodeRequire("node:net");
