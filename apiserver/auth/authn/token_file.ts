/**
 * The static token file of `--token-auth-file`: CSV with the columns token, user name, uid and
 * an optional groups column (several groups in one quoted, comma-separated field). Parsed as
 * Kubernetes does: at least three columns per line, empty tokens skipped, a repeated token
 * replaces the earlier one (with a warning). Errors name the line, never the token.
 *
 * @module
 */
import type { StaticToken } from "./static_token.ts";

/** The parsed file: its tokens and the warnings to log. */
export interface TokenFile {
  tokens: StaticToken[];
  warnings: string[];
}

/** Splits CSV text into records (RFC 4180 quoting, leading spaces of fields trimmed). */
export function parseCsv(text: string): { line: number; fields: string[] }[] {
  const records: { line: number; fields: string[] }[] = [];
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const startLine = line;
    const fields: string[] = [];
    let field = "";
    let atFieldStart = true;
    let endOfRecord = false;
    while (i < n && !endOfRecord) {
      const c = text[i];
      if (atFieldStart && (c === " " || c === "\t")) {
        i++;
        continue;
      }
      if (atFieldStart && c === '"') {
        i++;
        atFieldStart = false;
        let closed = false;
        while (i < n) {
          const q = text[i];
          if (q === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            closed = true;
            break;
          }
          if (q === "\n") line++;
          field += q;
          i++;
        }
        if (!closed) throw new Error(`line ${startLine}: unterminated quoted field`);
        if (i < n && text[i] !== "," && text[i] !== "\n" && text[i] !== "\r") {
          throw new Error(`line ${startLine}: extraneous text after a quoted field`);
        }
        continue;
      }
      atFieldStart = false;
      if (c === ",") {
        fields.push(field);
        field = "";
        atFieldStart = true;
        i++;
      } else if (c === "\r" && text[i + 1] === "\n") {
        i += 2;
        line++;
        endOfRecord = true;
      } else if (c === "\n") {
        i++;
        line++;
        endOfRecord = true;
      } else {
        if (c === '"') throw new Error(`line ${startLine}: bare quote in an unquoted field`);
        field += c;
        i++;
      }
    }
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === "")) records.push({ line: startLine, fields });
  }
  return records;
}

/** Parses the token file's text; throws with the line number on malformed input. */
export function parseTokenFile(text: string, source = "token file"): TokenFile {
  const tokens: StaticToken[] = [];
  const warnings: string[] = [];
  const seen = new Map<string, number>();
  let records: { line: number; fields: string[] }[];
  try {
    records = parseCsv(text);
  } catch (err) {
    throw new Error(`${source}: ${(err as Error).message}`);
  }
  for (const { line, fields } of records) {
    if (fields.length < 3) {
      throw new Error(
        `${source}: line ${line} must have at least 3 columns (token, user name, user uid), found ${fields.length}`,
      );
    }
    const [token, username, uid] = fields;
    if (token === "") {
      warnings.push(`${source}: line ${line} has an empty token; skipped`);
      continue;
    }
    if (username === "") throw new Error(`${source}: line ${line} has an empty user name`);
    const groups = fields.length > 3
      ? fields[3].split(",").map((g) => g.trim()).filter((g) => g !== "")
      : [];
    const previous = seen.get(token);
    if (previous !== undefined) {
      warnings.push(
        `${source}: line ${line} repeats the token of line ${previous}; the later wins`,
      );
    }
    seen.set(token, line);
    tokens.push({ token, user: { username, uid, groups } });
  }
  return { tokens, warnings };
}

/** Reads and parses a token file. */
export async function loadTokenFile(path: string): Promise<TokenFile> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    throw new Error(`--token-auth-file: cannot read ${path}: ${(err as Error).message}`);
  }
  return parseTokenFile(text, path);
}
