/**
 * Content negotiation: which media type a response is written in (Accept) and how a request
 * body is read (Content-Type).
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";

/** One media range of an Accept header, or a Content-Type. */
export interface MediaType {
  type: string;
  subtype: string;
  params: Record<string, string>;
  /** The `q` weight (1 when absent). */
  q: number;
}

/** Response encodings this server writes. */
export type OutputFormat = "json" | "yaml";

/** Parses one media type such as `application/json;as=Table;g=meta.k8s.io;v=v1`. */
export function parseMediaType(s: string): MediaType | undefined {
  const [full, ...rest] = s.split(";");
  const [type, subtype] = full.trim().toLowerCase().split("/");
  if (!type || !subtype) return undefined;
  const params: Record<string, string> = {};
  let q = 1;
  for (const p of rest) {
    const i = p.indexOf("=");
    if (i < 0) continue;
    const k = p.slice(0, i).trim().toLowerCase();
    const v = p.slice(i + 1).trim().replace(/^"|"$/g, "");
    if (k === "q") q = Number(v);
    else params[k] = v;
  }
  return { type, subtype, params, q: Number.isFinite(q) ? q : 0 };
}

/** Parses an Accept header into media ranges, best first (stable for equal weights). */
export function parseAccept(header: string | null): MediaType[] {
  if (!header || header.trim() === "") return [];
  return header.split(",").map((s) => parseMediaType(s)).filter((m): m is MediaType =>
    !!m && m.q > 0
  ).map((m, i) => ({ m, i })).sort((a, b) => b.m.q - a.m.q || a.i - b.i).map((x) => x.m);
}

const CONTENT_TYPES: Record<OutputFormat, string> = {
  json: "application/json",
  yaml: "application/yaml",
};

/** The media types an object response can be written in. */
export const SUPPORTED_OUTPUT = ["application/json", "application/yaml"];

/**
 * Chooses the response format for an object or list. Media ranges asking for another
 * representation (`as=Table`, a stream type) are skipped; none fitting is 406.
 */
export function negotiateOutput(accept: string | null): OutputFormat {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return "json";
  for (const r of ranges) {
    if (r.params.as !== undefined || r.params.stream !== undefined) continue;
    if ((r.type === "*" || r.type === "application") && r.subtype === "*") return "json";
    if (r.type === "application" && r.subtype === "json") return "json";
    if (r.type === "application" && r.subtype === "yaml") return "yaml";
  }
  throw StatusError.notAcceptable(SUPPORTED_OUTPUT);
}

/** The Content-Type header of a format. */
export function contentTypeOf(format: OutputFormat): string {
  return CONTENT_TYPES[format];
}
