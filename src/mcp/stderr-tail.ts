/** The last lines a server wrote to stderr, quoted in error results (at most ~2 KB, 20 lines). */
export class StderrTail {
  #text = "";

  constructor(private readonly max = 2048) {}

  push(chunk: string): void {
    this.#text = (this.#text + chunk).slice(-this.max * 2);
  }

  clear(): void {
    this.#text = "";
  }

  text(): string {
    const lines = this.#text.replace(/\s+$/, "").split("\n").slice(-20).join("\n");
    return lines.length > this.max ? `…${lines.slice(-this.max)}` : lines;
  }
}
