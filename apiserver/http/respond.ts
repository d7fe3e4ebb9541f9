/**
 * Writes responses: objects and lists in the negotiated format (JSON, YAML, Protobuf), Status
 * errors, the Warning headers collected while handling a request, gzip compression of large
 * get and list responses, and the encoding of watch events.
 *
 * @module
 */
import { gzip } from "node:zlib";
import { stringify } from "yaml";
import { encodeObject, ProtobufError } from "../../shared/codec/protobuf/mod.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { KubeList, KubeObject } from "../../shared/api/meta/v1/types.ts";
import { hasProtobuf } from "../../shared/codec/protobuf/mod.ts";
import { apiVersionOf, type KindDef } from "../registry/generic/kind.ts";
import {
  JSON_WATCH_ENCODER,
  objectWatchEncoder,
  PROTOBUF_WATCH_ENCODER,
  type WatchEventEncoder,
} from "../watch/watch_event_encoder.ts";
import type { ResourceContext } from "./context.ts";
import { fixedBody, fixedResponse } from "../../shared/http/https_server.ts";
import { contentTypeOf, isPretty, negotiate, type OutputFormat } from "./negotiation.ts";
import {
  type IncludeObject,
  parseIncludeObject,
  tableContentType,
  toTable,
} from "./table/table.ts";

/** Responses at least this large are gzip-compressed when the client accepts it (128 KiB). */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;

/** Encodes a value in a format (text for JSON and YAML, bytes for Protobuf). */
export function encode(value: unknown, format: OutputFormat, pretty = false): string | Uint8Array {
  if (format === "yaml") return stringify(value, { aliasDuplicateObjects: false });
  if (format === "protobuf") return encodeProtobuf(value);
  return pretty ? JSON.stringify(value, null, 2) + "\n" : JSON.stringify(value) + "\n";
}

function encodeProtobuf(value: unknown): Uint8Array<ArrayBuffer> {
  try {
    return encodeObject(value as Record<string, unknown>);
  } catch (err) {
    if (err instanceof ProtobufError) {
      if (err.reason === "UnknownKind") {
        throw StatusError.notAcceptable(["application/json", "application/yaml"]);
      }
      throw StatusError.internal(`encoding the response as protobuf: ${err.message}`);
    }
    throw err;
  }
}

/** Options of {@link objectResponse}. */
export interface ObjectResponseOptions {
  warnings?: string[];
  head?: boolean;
  pretty?: boolean;
  /** Overrides the Content-Type (Table responses). */
  contentType?: string;
}

/** A response holding an object, list or Status. */
export function objectResponse(
  status: number,
  value: unknown,
  format: OutputFormat,
  opts: ObjectResponseOptions = {},
): Response {
  const body = encode(value, format, opts.pretty);
  // Setting headers on the new Response skips converting a HeadersInit.
  const res = fixedResponse(opts.head ? null : body, { status });
  res.headers.set("Content-Type", opts.contentType ?? contentTypeOf(format));
  for (const w of opts.warnings ?? []) {
    // The write may have committed already: a warning that is no legal header is dropped
    // rather than turning the success into an error.
    try {
      res.headers.append("Warning", w);
    } catch { /* dropped */ }
  }
  return res;
}

/** The Status response of an error, in the negotiated format (JSON by default). */
export function errorResponse(err: StatusError, format: OutputFormat = "json"): Response {
  let body: string | Uint8Array;
  try {
    body = encode(err.status, format);
  } catch {
    format = "json";
    body = encode(err.status, format);
  }
  const headers = new Headers({ "Content-Type": contentTypeOf(format) });
  for (const [k, v] of Object.entries(err.headers)) headers.set(k, v);
  return fixedResponse(body, { status: err.code, headers });
}

/**
 * Formats a Warning header value as Kubernetes does (`299 - "text"`): the text is quoted with
 * `"` and `\\` escaped and sent as UTF-8 bytes, as Go writes it. Header values are byte strings,
 * so each UTF-8 byte becomes one latin1 character; line breaks and NUL, which no header value
 * may carry, become spaces (Go's server does the same to CR and LF).
 */
export function warningHeader(text: string): string {
  let quoted = '"';
  for (const c of text) {
    if (c === '"' || c === "\\") quoted += "\\" + c;
    else if (c === "\r" || c === "\n" || c === "\0") quoted += " ";
    else quoted += c;
  }
  quoted += '"';
  return `299 - ${utf8AsLatin1(quoted)}`;
}

function utf8AsLatin1(s: string): string {
  // deno-lint-ignore no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return s;
  let out = "";
  for (const b of new TextEncoder().encode(s)) out += String.fromCharCode(b);
  return out;
}

/** Whether an Accept-Encoding header accepts gzip. */
export function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  return header.split(",").some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding.trim() !== "gzip" && coding.trim() !== "*") return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * Gzip-compresses `res` when the client accepts gzip and the body is at least `threshold`
 * bytes (kube-apiserver's APIResponseCompression for get and list); otherwise returns it as is.
 */
export async function compressResponse(
  req: Request,
  res: Response,
  threshold = GZIP_THRESHOLD_BYTES,
): Promise<Response> {
  const fixed = fixedBody(res);
  if (
    fixed === "" || (fixed === undefined && !res.body) || res.headers.has("Content-Encoding") ||
    !acceptsGzip(req.headers.get("accept-encoding"))
  ) {
    return res;
  }
  if (fixed !== undefined) {
    // A fixed body is measured and, when small, kept as it is: reading it through the
    // Response's stream and wrapping it anew was a large share of a get's CPU.
    const bytes = typeof fixed === "string" ? fixedText(fixed, threshold) : fixed;
    if (bytes === undefined || bytes.byteLength < threshold) {
      res.headers.append("Vary", "Accept-Encoding");
      return res;
    }
    return await gzipped(res, bytes);
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.byteLength < threshold) {
    const headers = new Headers(res.headers);
    headers.append("Vary", "Accept-Encoding");
    return new Response(bytes, { status: res.status, headers });
  }
  return await gzipped(res, bytes);
}

const utf8 = new TextEncoder();

/**
 * The UTF-8 bytes of `text`, or undefined when they are surely fewer than `threshold` (a UTF-16
 * code unit takes at most 3 bytes), which spares encoding a small body.
 */
function fixedText(text: string, threshold: number): Uint8Array | undefined {
  return text.length * 3 < threshold ? undefined : utf8.encode(text);
}

/** `res` with `bytes` as its body, gzip-compressed. */
async function gzipped(res: Response, bytes: Uint8Array): Promise<Response> {
  const headers = new Headers(res.headers);
  headers.append("Vary", "Accept-Encoding");
  headers.set("Content-Encoding", "gzip");
  return fixedResponse(await gzipLevel1(bytes), { status: res.status, headers });
}

/**
 * Gzip at level 1, as kube-apiserver compresses responses: several times cheaper than the
 * default level (CompressionStream's) for a slightly larger body.
 */
function gzipLevel1(bytes: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  return new Promise((resolve, reject) => {
    gzip(bytes, { level: 1 }, (err, out) => {
      if (err) reject(err);
      else resolve(new Uint8Array(out.buffer as ArrayBuffer, out.byteOffset, out.byteLength));
    });
  });
}

/**
 * Answers a get or list with the representation the client negotiated: the object or list
 * itself, a Table (with `includeObject`), or PartialObjectMetadata; pretty-printed on request.
 */
export function respondWithRepresentation(
  ctx: ResourceContext,
  value: KubeObject | KubeList,
  opts: { list: boolean; warnings?: string[] } = { list: false },
): Response {
  const neg = negotiate(ctx.req.headers.get("accept"), {
    protobuf: hasProtobuf(apiVersionOf(ctx.store.def), ctx.store.def.kind),
    representations: opts.list
      ? ["Table", "PartialObjectMetadataList"]
      : ["Table", "PartialObjectMetadata"],
  });
  const common = {
    warnings: opts.warnings ?? ctx.warnings,
    head: ctx.req.method === "HEAD",
    pretty: isPretty(ctx.url, ctx.req),
  };
  const version = neg.asVersion ?? "v1";
  const fmt = neg.format === "yaml" ? "yaml" : "json";
  if (neg.as === "Table") {
    const table = toTable(value, ctx.store.def, {
      version,
      includeObject: parseIncludeObject(ctx.url.searchParams),
    });
    return objectResponse(200, table, fmt, {
      ...common,
      contentType: tableContentType(version, fmt),
    });
  }
  if (neg.as === "PartialObjectMetadata" || neg.as === "PartialObjectMetadataList") {
    const partial = (o: KubeObject) => ({
      kind: "PartialObjectMetadata",
      apiVersion: `meta.k8s.io/${version}`,
      metadata: o.metadata,
    });
    const out = opts.list
      ? {
        kind: "PartialObjectMetadataList",
        apiVersion: `meta.k8s.io/${version}`,
        metadata: value.metadata,
        items: (value as KubeList).items.map(partial),
      }
      : partial(value as KubeObject);
    return objectResponse(200, out, fmt, {
      ...common,
      contentType: `application/${fmt};as=${neg.as};v=${version};g=meta.k8s.io`,
    });
  }
  return objectResponse(200, value, neg.format, common);
}

/** How a watch response is written: its Content-Type and the encoder of its events. */
export interface WatchWire {
  contentType: string;
  /**
   * Encodes each event; the watch cache shares its bytes among every watcher of the resource
   * with the same `encoder.key`.
   */
  encoder: WatchEventEncoder;
}

const PROTOBUF_WATCH_CONTENT_TYPE = "application/vnd.kubernetes.protobuf;stream=watch";

/** Table encoders per kind, by key, so concurrent Table watches share one encoder object. */
const tableEncoders = new WeakMap<KindDef, Map<string, WatchEventEncoder>>();

/**
 * The encoder of Table watch events for `def` (key `table;<version>;<includeObject>`): each
 * object becomes a one-row Table (with column definitions), a BOOKMARK an empty Table carrying
 * only the resourceVersion, and an ERROR event keeps its Status. JSON lines.
 */
export function tableWatchEncoder(
  def: KindDef,
  version: string,
  includeObject: IncludeObject,
): WatchEventEncoder {
  const key = `table;${version};${includeObject}`;
  let byKey = tableEncoders.get(def);
  if (!byKey) tableEncoders.set(def, byKey = new Map());
  let enc = byKey.get(key);
  if (!enc) {
    enc = objectWatchEncoder({
      key,
      framing: "json",
      convert: (type, o) => {
        if (type === "BOOKMARK") {
          const t = toTable({ metadata: {}, items: [] }, def, { version });
          t.metadata.resourceVersion = (o as KubeObject).metadata?.resourceVersion;
          return t as unknown as Record<string, unknown>;
        }
        return toTable(o, def, { version, includeObject }) as unknown as Record<string, unknown>;
      },
    });
    byKey.set(key, enc);
  }
  return enc;
}

/**
 * Negotiates a watch response for `ctx`: JSON lines (also for YAML requests), Protobuf
 * `;stream=watch` frames, or Table objects in each event (JSON lines, Content-Type
 * `application/json`); 406 when nothing fits, 400 for a bad `includeObject`. The watch handler
 * hands the encoder to the watch cache, which encodes each event once per format.
 */
export function watchWire(ctx: ResourceContext): WatchWire {
  const def = ctx.store.def;
  const neg = negotiate(ctx.req.headers.get("accept"), {
    protobuf: hasProtobuf(apiVersionOf(def), def.kind),
    representations: ["Table"],
    watch: true,
  });
  if (neg.as === "Table") {
    const version = neg.asVersion ?? "v1";
    const includeObject = parseIncludeObject(ctx.url.searchParams);
    return {
      contentType: "application/json",
      encoder: tableWatchEncoder(def, version, includeObject),
    };
  }
  if (neg.format === "protobuf") {
    return { contentType: PROTOBUF_WATCH_CONTENT_TYPE, encoder: PROTOBUF_WATCH_ENCODER };
  }
  return { contentType: "application/json", encoder: JSON_WATCH_ENCODER };
}
