/**
 * OpenApiV2Handler: serves `/openapi/v2` as kube-openapi does: JSON, or gnostic's Protobuf
 * `Document` for `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` (and its `.v1.0`
 * spelling), chosen by the first acceptable media range of `Accept` (by quality), else 406; each
 * form with an ETag (the quoted uppercase hex SHA-512 of its bytes), 304 on If-None-Match, and
 * gzip when the client accepts it and compression is on (the bytes compressed once).
 *
 * @module
 */
import { builtinSchemaModel } from "../../shared/api/schema/builtin_model.ts";
import type { SchemaModel } from "../../shared/api/schema/model.ts";
import { acceptsGzip, GZIP_THRESHOLD_BYTES } from "../http/respond.ts";
import type { KindDef } from "../registry/generic/kind.ts";
import { buildOpenApiV2 } from "./openapi_v2.ts";
import { encodeOpenApiV2Proto } from "./openapi_v2_proto.ts";
import { mergeOpenApiV2 } from "./merge_openapi_v2.ts";

/** The Protobuf media type kube-openapi answers with. */
export const OPENAPI_V2_PROTO_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/** One serialized form of the document. */
interface Form {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  gzip?: Promise<Uint8Array<ArrayBuffer>>;
}

interface Forms {
  json: Form;
  proto: Form;
  lastModified: string;
}

/** The media ranges served: type, subtype, and which form they get. */
const ACCEPTED: readonly [string, string, keyof Omit<Forms, "lastModified">][] = [
  ["application", "json", "json"],
  ["application", "com.github.proto-openapi.spec.v2@v1.0+protobuf", "proto"],
  ["application", "com.github.proto-openapi.spec.v2.v1.0+protobuf", "proto"],
];

async function etagOf(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-512", bytes));
  return `"${Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("").toUpperCase()}"`;
}

async function gzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The options of {@link OpenApiV2Handler}. */
export interface OpenApiV2Options {
  /** The served kinds; read again after {@link OpenApiV2Handler.invalidate}. */
  kinds: () => readonly KindDef[];
  /** The verbs with handlers. */
  served: () => ReadonlySet<string>;
  /** Whether responses may be gzip-compressed (APIResponseCompression). */
  compress: () => boolean;
  /**
   * The OpenAPI v2 documents of extension API servers merged into ours (the aggregator's),
   * and a generation that changes with them.
   */
  remote?: () => { generation: number; docs: readonly Record<string, unknown>[] };
  model?: SchemaModel;
}

/** Serves the OpenAPI v2 document of the kinds `kinds()` returns. */
export class OpenApiV2Handler {
  readonly #opts: OpenApiV2Options;
  readonly #model: SchemaModel;
  #forms?: Promise<Forms>;
  /** The remote documents' generation the cached forms were built with. */
  #remoteGeneration = 0;

  /** A handler over the options' kinds and model (the built-in model by default). */
  constructor(opts: OpenApiV2Options) {
    this.#opts = opts;
    this.#model = opts.model ?? builtinSchemaModel();
  }

  /** Drops the cached document (the served kinds changed). */
  invalidate(): void {
    this.#forms = undefined;
  }

  #build(): Promise<Forms> {
    const generation = this.#opts.remote?.().generation ?? 0;
    if (generation !== this.#remoteGeneration) {
      this.#remoteGeneration = generation;
      this.#forms = undefined;
    }
    if (!this.#forms) {
      const building = this.#buildForms();
      // A failed build is not kept: the next request tries again.
      building.catch(() => {
        if (this.#forms === building) this.#forms = undefined;
      });
      this.#forms = building;
    }
    return this.#forms;
  }

  async #buildForms(): Promise<Forms> {
    const local = await buildOpenApiV2(this.#model, this.#opts.kinds(), this.#opts.served());
    const doc = mergeOpenApiV2(local, this.#opts.remote?.().docs ?? []);
    const json = new TextEncoder().encode(JSON.stringify(doc));
    await new Promise((resolve) => setTimeout(resolve, 0));
    const proto = encodeOpenApiV2Proto(doc);
    return {
      json: { body: json, etag: await etagOf(json) },
      proto: { body: proto, etag: await etagOf(proto) },
      lastModified: new Date().toUTCString(),
    };
  }

  /** Answers `/openapi/v2`; undefined for other paths. */
  async handle(req: Request, url: URL): Promise<Response | undefined> {
    if (url.pathname !== "/openapi/v2" && url.pathname !== "/openapi/v2/") return undefined;
    if (req.method !== "GET" && req.method !== "HEAD") {
      return new Response("method not allowed\n", { status: 405 });
    }
    const which = negotiate(req.headers.get("accept"));
    if (!which) {
      return new Response(null, { status: 406, headers: { Vary: "Accept" } });
    }
    const forms = await this.#build();
    const form = forms[which];
    const headers = new Headers({
      "Content-Type": which === "json" ? "application/json" : OPENAPI_V2_PROTO_TYPE,
      ETag: form.etag,
      "Last-Modified": forms.lastModified,
      Vary: "Accept",
    });
    const inm = req.headers.get("if-none-match");
    if (inm && (inm.trim() === "*" || inm.split(",").some((t) => t.trim() === form.etag))) {
      return new Response(null, { status: 304, headers });
    }
    let body = form.body;
    if (this.#opts.compress() && body.byteLength >= GZIP_THRESHOLD_BYTES) {
      headers.append("Vary", "Accept-Encoding");
      if (acceptsGzip(req.headers.get("accept-encoding"))) {
        form.gzip ??= gzip(form.body);
        body = await form.gzip;
        headers.set("Content-Encoding", "gzip");
      }
    }
    headers.set("Content-Length", String(body.byteLength));
    return new Response(req.method === "HEAD" ? null : body, { headers });
  }
}

/** The form the first acceptable media range (highest quality first) asks for. */
export function negotiate(accept: string | null): "json" | "proto" | undefined {
  const text = accept && accept.trim() !== "" ? accept : "*/*";
  const ranges = text.split(",").map((r, i) => {
    const [media, ...params] = r.split(";").map((s) => s.trim());
    const qp = params.find((p) => p.toLowerCase().startsWith("q="));
    const q = qp ? Number(qp.slice(2)) : 1;
    const [type = "", sub = ""] = media.toLowerCase().split("/");
    return { type, sub, q: Number.isFinite(q) ? q : 0, i };
  }).filter((r) => r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranges) {
    for (const [type, sub, form] of ACCEPTED) {
      if ((r.type === type || r.type === "*") && (r.sub === sub || r.sub === "*")) return form;
    }
  }
  return undefined;
}
