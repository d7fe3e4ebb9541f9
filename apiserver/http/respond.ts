/**
 * Writes responses: objects and lists in the negotiated format (JSON, YAML, Protobuf), Status
 * errors, the Warning headers collected while handling a request, gzip compression of large
 * get and list responses, and the encoding of watch events.
 *
 * @module
 */
import { gzip } from "node:zlib";
import { stringify } from "yaml";
import type { Status } from "../../shared/api/meta/v1/types.ts";
import { encodeObject, encodeWatchFrame, ProtobufError } from "../../shared/codec/protobuf/mod.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { KubeList, KubeObject } from "../../shared/api/meta/v1/types.ts";
import { hasProtobuf } from "../../shared/codec/protobuf/mod.ts";
import { apiVersionOf } from "../registry/generic/kind.ts";
import type { ResourceContext } from "./context.ts";
import { fixedResponse } from "./https_server.ts";
import { contentTypeOf, isPretty, negotiate, type OutputFormat } from "./negotiation.ts";
import { parseIncludeObject, tableContentType, toTable } from "./table/table.ts";

const encoder = new TextEncoder();

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
  // Setting headers on the new Response skips converting a HeadersInit (~3 µs).
  const res = fixedResponse(opts.head ? null : body, { status });
  res.headers.set("Content-Type", opts.contentType ?? contentTypeOf(format));
  for (const w of opts.warnings ?? []) res.headers.append("Warning", w);
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

/** A Success Status (deletecollection, some deletes). */
export function successStatus(details?: Status["details"]): Status {
  const s: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    code: 200,
  };
  if (details) s.details = details;
  return s;
}

/** Formats a Warning header value as Kubernetes does (`299 - "text"`). */
export function warningHeader(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
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
  if (
    !res.body || res.headers.has("Content-Encoding") ||
    !acceptsGzip(req.headers.get("accept-encoding"))
  ) {
    return res;
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  const headers = new Headers(res.headers);
  headers.append("Vary", "Accept-Encoding");
  if (bytes.byteLength < threshold) return new Response(bytes, { status: res.status, headers });
  const gz = await gzipLevel1(bytes);
  headers.set("Content-Encoding", "gzip");
  return fixedResponse(gz, { status: res.status, headers });
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

/** Encodes watch events for one watch response. */
export interface WatchEventEncoder {
  /** The response Content-Type. */
  contentType: string;
  /** One event on the wire (a JSON line, or a length-prefixed Protobuf frame). */
  encode(type: string, object: Record<string, unknown>): Uint8Array;
}

/**
 * The encoder of watch events in `format`: newline-separated JSON `{"type","object"}` objects,
 * or Protobuf frames (`;stream=watch`). `transform` turns each object into what the client
 * asked for (for example a Table), and is not applied to ERROR and BOOKMARK events' Status.
 */
export function watchEventEncoder(
  format: OutputFormat,
  transform?: (type: string, object: Record<string, unknown>) => Record<string, unknown>,
): WatchEventEncoder {
  const conv = (type: string, o: Record<string, unknown>) =>
    transform && type !== "ERROR" ? transform(type, o) : o;
  if (format === "protobuf") {
    return {
      contentType: "application/vnd.kubernetes.protobuf;stream=watch",
      encode: (type, object) => encodeWatchFrame(type, conv(type, object)),
    };
  }
  return {
    contentType: "application/json",
    encode: (type, object) =>
      encoder.encode(JSON.stringify({ type, object: conv(type, object) }) + "\n"),
  };
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

/** How a watch response is written: its Content-Type and, unless plain JSON, a re-encoder. */
export interface WatchWire {
  contentType: string;
  /** Re-encodes the JSON-lines event stream (Protobuf frames, Table objects); absent for JSON. */
  transform?: TransformStream<Uint8Array, Uint8Array>;
}

/**
 * Negotiates a watch response (JSON lines, Protobuf `;stream=watch` frames, or Table objects
 * in each event) for `ctx`; 406 when nothing fits. The watch handler pipes its JSON-lines
 * stream through `transform` when there is one.
 */
export function watchWire(ctx: ResourceContext): WatchWire {
  const def = ctx.store.def;
  const neg = negotiate(ctx.req.headers.get("accept"), {
    protobuf: hasProtobuf(apiVersionOf(def), def.kind),
    representations: ["Table"],
    watch: true,
  });
  if (neg.format === "json" && !neg.as) return { contentType: "application/json" };
  let transform:
    | ((type: string, o: Record<string, unknown>) => Record<string, unknown>)
    | undefined;
  if (neg.as === "Table") {
    const version = neg.asVersion ?? "v1";
    const includeObject = parseIncludeObject(ctx.url.searchParams);
    transform = (type, o) => {
      if (type === "BOOKMARK") {
        const t = toTable({ metadata: {}, items: [] }, def, { version });
        t.metadata.resourceVersion = (o as KubeObject).metadata?.resourceVersion;
        return t as unknown as Record<string, unknown>;
      }
      return toTable(o, def, { version, includeObject }) as unknown as Record<string, unknown>;
    };
  }
  const enc = watchEventEncoder(neg.format === "protobuf" ? "protobuf" : "json", transform);
  const decoder = new TextDecoder();
  let pending = "";
  return {
    contentType: neg.as === "Table" ? "application/json" : enc.contentType,
    transform: new TransformStream({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          if (line.trim() === "") continue;
          const e = JSON.parse(line) as { type: string; object: Record<string, unknown> };
          controller.enqueue(enc.encode(e.type, e.object));
        }
      },
    }),
  };
}
