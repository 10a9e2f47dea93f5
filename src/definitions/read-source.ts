import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";
import type { DiagnosticSink } from "./diagnostics.js";

export const MAX_FILE_BYTES = 1024 * 1024;

/**
 * Reads a definition file as text, refusing what cannot be one: folders, pipes and devices (never
 * opened: opening a FIFO waits for a writer for ever), files over 1 MiB, binary files (a NUL byte),
 * text that is not UTF-8, and empty files. Contract: never throws, never blocks; returns null after
 * reporting why.
 */
export function readSource(file: string, sink: DiagnosticSink): string | null {
  let fd: number | undefined;
  try {
    const kind = fileKind(statSync(file));
    if (kind) {
      sink.add("error", "not-a-file", `not a regular file (${kind})`);
      return null;
    }
    // Non-blocking, should it have become a pipe since: then the second look below says so.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    const now = fileKind(st);
    if (now) {
      sink.add("error", "not-a-file", `not a regular file (${now})`);
      return null;
    }
    if (st.size > MAX_FILE_BYTES) {
      sink.add(
        "error",
        "file-too-large",
        `file is ${st.size} bytes; definitions are limited to ${MAX_FILE_BYTES} bytes (1 MiB)`,
      );
      return null;
    }
    const bytes = Buffer.allocUnsafe(st.size);
    let filled = 0;
    while (filled < st.size) {
      const n = readSync(fd, bytes, filled, st.size - filled, null);
      if (n === 0) break;
      filled += n;
    }
    return decodeSource(bytes.subarray(0, filled), sink);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    sink.add(
      "error",
      "unreadable",
      code === "ENOENT"
        ? "cannot read the file: it is a symlink to nothing (dangling)"
        : `cannot read the file: ${code ?? String(e)}`,
    );
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function fileKind(st: import("node:fs").Stats): string | undefined {
  if (st.isFile()) return undefined;
  if (st.isDirectory()) return "a folder";
  if (st.isFIFO()) return "a named pipe";
  if (st.isSocket()) return "a socket";
  return "a device";
}

export function decodeSource(bytes: Uint8Array, sink: DiagnosticSink): string | null {
  const nul = bytes.subarray(0, 8192).indexOf(0);
  if (nul !== -1) {
    sink.add(
      "error",
      "binary-file",
      `binary file (a NUL byte at offset ${nul}); a definition must be UTF-8 text`,
    );
    return null;
  }
  if (!isUtf8(bytes)) {
    sink.add("error", "not-utf8", "the file is not valid UTF-8 text; save it as UTF-8");
    return null;
  }
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!text.includes("\n") && text.includes("\r")) {
    text = text.replace(/\r/g, "\n");
    sink.add("info", "cr-line-ends", "old Mac line ends (CR alone) were read as line breaks");
  }
  if (text.trim() === "") {
    sink.add("error", "empty-file", "the file is empty; there is nothing to load");
    return null;
  }
  return text;
}
