/**
 * Content negotiation: which media type a response is written in (Accept, with alternatives,
 * weights and parameters such as `as=Table;g=meta.k8s.io;v=v1`) and how a request body is read
 * (Content-Type).
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
export type OutputFormat = "json" | "yaml" | "protobuf";

/** Another representation of the object asked for with `as=…;g=meta.k8s.io;v=…`. */
export type Representation = "Table" | "PartialObjectMetadata" | "PartialObjectMetadataList";

/** The outcome of negotiation. */
export interface Negotiated {
  format: OutputFormat;
  /** Set when the client asked for a Table or metadata-only representation. */
  as?: Representation;
  /** The meta.k8s.io version of that representation (`v1` or `v1beta1`). */
  asVersion?: string;
}

/** What the response may be, for {@link negotiate}. */
export interface NegotiateOptions {
  /** The kind has a Protobuf encoding (default false). */
  protobuf?: boolean;
  /** Representations the verb serves (Table on get, list and watch). */
  representations?: readonly Representation[];
  /** A watch: `stream=watch` ranges are acceptable. */
  watch?: boolean;
}

/** Parses one media type such as `application/json;as=Table;g=meta.k8s.io;v=v1`. */
export function parseMediaType(s: string): MediaType | undefined {
  const [full, ...rest] = s.split(";");
  const [type, subtype, extra] = full.trim().toLowerCase().split("/");
  if (!type || !subtype || extra !== undefined) return undefined;
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
  protobuf: "application/vnd.kubernetes.protobuf",
};

/** The media types an object response can be written in. */
export const SUPPORTED_OUTPUT = [
  "application/json",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
];

function formatOf(r: MediaType, protobuf: boolean): OutputFormat | undefined {
  if (r.type === "*" && r.subtype === "*") return "json";
  if (r.type !== "application") return undefined;
  if (r.subtype === "*" || r.subtype === "json") return "json";
  if (r.subtype === "yaml") return "yaml";
  if (r.subtype === "vnd.kubernetes.protobuf" && protobuf) return "protobuf";
  return undefined;
}

/** Picks the best acceptable response, or undefined when none fits. */
export function tryNegotiate(
  accept: string | null,
  opts: NegotiateOptions = {},
): Negotiated | undefined {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return { format: "json" };
  for (const r of ranges) {
    if (r.params.stream !== undefined && !(opts.watch && r.params.stream === "watch")) continue;
    const format = formatOf(r, !!opts.protobuf);
    if (!format) continue;
    const as = r.params.as;
    if (as === undefined) return { format };
    const ok = (opts.representations ?? []).includes(as as Representation) &&
      r.params.g === "meta.k8s.io" && (r.params.v === "v1" || r.params.v === "v1beta1") &&
      format !== "protobuf";
    if (ok) return { format, as: as as Representation, asVersion: r.params.v };
  }
  return undefined;
}

/** Picks the best acceptable response; 406 with a Status when nothing fits. */
export function negotiate(accept: string | null, opts: NegotiateOptions = {}): Negotiated {
  const n = tryNegotiate(accept, opts);
  if (n) return n;
  throw StatusError.notAcceptable(
    opts.protobuf ? SUPPORTED_OUTPUT : ["application/json", "application/yaml"],
  );
}

/**
 * Chooses the response format for an object or list (406 when none fits). Representations
 * such as Table are left to the verb handlers; `opts` says which the verb serves.
 */
export function negotiateOutput(accept: string | null, opts: NegotiateOptions = {}): OutputFormat {
  return negotiate(accept, opts).format;
}

/** The format a Status error is written in: the client's preference where it fits, else JSON. */
export function errorFormat(accept: string | null): OutputFormat {
  return tryNegotiate(accept, { protobuf: true, watch: true })?.format ?? "json";
}

/** The Content-Type header of a format. */
export function contentTypeOf(format: OutputFormat): string {
  return CONTENT_TYPES[format];
}

/** Whether a response should be indented: `pretty=true`, or a browser or curl asking. */
export function isPretty(url: URL, req: Request): boolean {
  const p = url.searchParams.get("pretty");
  if (p !== null) return p === "true" || p === "1";
  const ua = req.headers.get("user-agent") ?? "";
  return ua.startsWith("curl") || ua.startsWith("Wget") || ua.startsWith("Mozilla/");
}
