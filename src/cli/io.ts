/** What a CLI command may touch; tests pass their own. */
export interface CliIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: {
    write(s: string): unknown;
    isTTY?: boolean;
    /** A stream's failures (a full disk): a command that listens says so and stops. */
    on?(event: "error", listener: (e: Error) => void): unknown;
    off?(event: "error", listener: (e: Error) => void): unknown;
  };
  readonly stderr: { write(s: string): unknown; isTTY?: boolean };
}

export interface Style {
  readonly red: (s: string) => string;
  readonly yellow: (s: string) => string;
  readonly green: (s: string) => string;
  readonly cyan: (s: string) => string;
  readonly bold: (s: string) => string;
  readonly dim: (s: string) => string;
}

const plain = (s: string) => s;
const PLAIN: Style = { red: plain, yellow: plain, green: plain, cyan: plain, bold: plain, dim: plain };

const wrap = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`;
const COLOR: Style = {
  red: wrap(31, 39),
  yellow: wrap(33, 39),
  green: wrap(32, 39),
  cyan: wrap(36, 39),
  bold: wrap(1, 22),
  dim: wrap(2, 22),
};

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function styleFor(stream: { isTTY?: boolean }, env: CliIo["env"]): Style {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  return stream.isTTY === true && !noColor && env.TERM !== "dumb" ? COLOR : PLAIN;
}
