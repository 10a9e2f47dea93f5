/**
 * The bridge that lets a command in a sandbox without network reach the runner's proxy: a Node
 * program, run inside the sandbox as `node -e PROXY_BRIDGE -- SOCKET PORT COMMAND ARGS…`, that
 * listens on the sandbox's own loopback at PORT, carries each connection to the proxy's Unix socket
 * (bound into the sandbox), and runs COMMAND once it listens, exiting as COMMAND exits (which ends
 * the sandbox). Given inline, so that it runs the same from the sources and from dist/.
 */
export const PROXY_BRIDGE = `
const net = require("net");
const os = require("os");
const { spawn } = require("child_process");
const [sock, port, cmd, ...args] = process.argv.slice(1);
const server = net.createServer((c) => {
  const u = net.connect(sock);
  c.pipe(u);
  u.pipe(c);
  c.on("error", () => u.destroy());
  u.on("error", () => c.destroy());
});
server.on("error", (e) => {
  process.stderr.write("agentmd sandbox: the proxy bridge cannot listen: " + e.message + "\\n");
  process.exit(126);
});
server.listen(Number(port), "127.0.0.1", () => {
  const child = spawn(cmd, args, { stdio: "inherit" });
  child.on("error", (e) => {
    process.stderr.write(e.message + "\\n");
    process.exit(127);
  });
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
});
`;

/** The port the proxy answers on inside the sandbox (its network namespace is its own). */
export const PROXY_PORT = 3128;
