/**
 * Errors of the CEL module. Compile errors carry the position in the expression; runtime
 * errors (no such key, overflow, budget exceeded) are returned as values, never thrown to
 * callers.
 *
 * @module
 */

/** Codes callers may branch on. Library codes pass through unchanged. */
export type CelErrorCode =
  | "parse_error"
  | "type_error"
  | "cost_limit_exceeded"
  | "no_such_key"
  | "numeric_overflow"
  | "invalid_argument"
  | "index_out_of_range"
  | "internal"
  | (string & Record<never, never>);

/** A 1-based position in the expression text. */
export interface CelPosition {
  /** 0-based character offset. */
  offset: number;
  /** 1-based line. */
  line: number;
  /** 1-based column (in characters). */
  column: number;
}

/** An error produced by compiling or evaluating an expression. */
export interface CelIssue {
  /** Machine-readable code. */
  code: CelErrorCode;
  /** One-line message without the source excerpt. */
  message: string;
  /** Where in the expression, when known. */
  position?: CelPosition;
  /** The message with `<input>:line:col:` prefix and a source excerpt, as cel-go prints it. */
  detail: string;
}

/** Thrown inside library function handlers; converted to a {@link CelIssue} at the boundary. */
export class CelEvalFailure extends Error {
  /** The error code. */
  readonly code: CelErrorCode;
  /** Creates a failure with a code and message. */
  constructor(code: CelErrorCode, message: string) {
    super(message);
    this.name = "CelEvalFailure";
    this.code = code;
  }
}

/** Creates a {@link CelEvalFailure} (for use in function handlers). */
export function celError(code: CelErrorCode, message: string): CelEvalFailure {
  return new CelEvalFailure(code, message);
}

/** Computes the line/column of `offset` in `input`. */
export function positionOf(input: string, offset: number): CelPosition {
  let line = 1, col = 1;
  const chars = Array.from(input.slice(0, Math.max(0, offset)));
  for (const c of chars) {
    if (c === "\n") {
      line++;
      col = 1;
    } else col++;
  }
  return { offset, line, column: col };
}

function excerpt(input: string, pos: CelPosition): string {
  const lineText = input.split("\n")[pos.line - 1] ?? "";
  return `\n | ${lineText}\n | ${".".repeat(Math.max(0, pos.column - 1))}^`;
}

/** Converts anything thrown by the library or our handlers into a {@link CelIssue}. */
export function toIssue(e: unknown, input: string, fallbackCode: CelErrorCode): CelIssue {
  if (e instanceof CelEvalFailure) {
    return { code: e.code, message: e.message, detail: e.message };
  }
  if (e instanceof Error) {
    const err = e as Error & {
      code?: string;
      summary?: string;
      range?: { start: number };
      node?: { start?: number; pos?: number };
    };
    const code = typeof err.code === "string" && err.code ? err.code : fallbackCode;
    const message = (err.summary ?? err.message.split("\n")[0]).replace(/^[^:]*Error: /, "");
    const offset = err.range?.start ?? err.node?.start ?? err.node?.pos;
    if (typeof offset === "number" && offset >= 0) {
      const position = positionOf(input, offset);
      return {
        code: normalizeCode(code, fallbackCode, err.name),
        message,
        position,
        detail: `<input>:${position.line}:${position.column}: ${message}${
          excerpt(input, position)
        }`,
      };
    }
    return { code: normalizeCode(code, fallbackCode, err.name), message, detail: message };
  }
  return { code: "internal", message: String(e), detail: String(e) };
}

function normalizeCode(code: string, fallback: CelErrorCode, name: string): CelErrorCode {
  if (name === "ParseError") return "parse_error";
  if (name === "TypeError" && fallback === "type_error") return code || "type_error";
  if (code === "index_out_of_bounds") return "index_out_of_range";
  return code;
}
