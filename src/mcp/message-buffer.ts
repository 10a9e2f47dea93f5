/**
 * A stdio server's output as JSON-RPC messages, one a line, in time linear in their size: it stands
 * in for the SDK's read buffer, which copies all it holds on every chunk (an 11 MB answer took 7 s,
 * a 50 MB one minutes). Same interface; a line longer than `maxBytes` is an error, as there.
 */
export class MessageBuffer {
  #partial: Buffer[] = [];
  #partialBytes = 0;
  #lines: Buffer[] = [];

  constructor(
    private readonly maxBytes: number,
    private readonly parse: (line: string) => unknown,
  ) {}

  append(chunk: Buffer): void {
    let from = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      this.#partial.push(chunk.subarray(from, nl));
      this.#lines.push(Buffer.concat(this.#partial));
      this.#partial = [];
      this.#partialBytes = 0;
      from = nl + 1;
    }
    if (from === chunk.length) return;
    this.#partialBytes += chunk.length - from;
    if (this.#partialBytes > this.maxBytes) {
      this.clear();
      throw new Error(`the server sent a message of more than ${this.maxBytes / (1024 * 1024)} MB`);
    }
    this.#partial.push(chunk.subarray(from));
  }

  /** The next whole message, or null. */
  readMessage(): unknown {
    const line = this.#lines.shift();
    return line === undefined ? null : this.parse(line.toString("utf8").replace(/\r$/, ""));
  }

  clear(): void {
    this.#partial = [];
    this.#partialBytes = 0;
    this.#lines = [];
  }
}
