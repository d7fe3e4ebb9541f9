/**
 * What an exec or attach session needs from its transport, whichever protocol carries it
 * (the WebSocket channel protocols or SPDY streams).
 *
 * @module
 */

/** Client input of a session. */
export interface ExecInput {
  /** Bytes for the command's standard input. */
  stdin(data: Uint8Array): void;
  /** The client closed standard input. */
  stdinEnd(): void;
  /** The client's terminal size changed. */
  resize(width: number, height: number): void;
  /** The client left. */
  gone(): void;
}

/** The transport of one session. */
export interface ExecIO {
  /** Starts delivering client input. */
  start(input: ExecInput): void;
  /** Sends standard output. */
  stdout(data: Uint8Array): Promise<void>;
  /** Sends standard error. */
  stderr(data: Uint8Array): Promise<void>;
  /** Sends the outcome (a metav1.Status) and ends the session. */
  finish(status: Record<string, unknown>): Promise<void>;
}

/** A terminal size message `{"Width": w, "Height": h}`; undefined when malformed. */
export function parseTerminalSize(text: string): { width: number; height: number } | undefined {
  try {
    const v = JSON.parse(text) as { Width?: unknown; Height?: unknown };
    const width = Number(v.Width);
    const height = Number(v.Height);
    if (!Number.isInteger(width) || !Number.isInteger(height)) return undefined;
    if (width < 0 || height < 0 || width > 65535 || height > 65535) return undefined;
    return { width, height };
  } catch {
    return undefined;
  }
}
