/**
 * OpenApiV3Handler: serves `/openapi/v3` (the index of group-version documents, each with a
 * `serverRelativeURL` carrying the uppercase hex SHA-512 of its content) and
 * `/openapi/v3/{api/v1 | apis/<group>/<version>}` with kube-apiserver's caching: an ETag, 304 on
 * If-None-Match, and with `?hash=` either `Cache-Control: public, immutable` and a one-year
 * Expires, or a 301 to the current hash.
 *
 * @module
 */
import { builtinSchemaModel } from "../../shared/api/schema/builtin_model.ts";
import type { SchemaModel } from "../../shared/api/schema/model.ts";
import type { KindDef } from "../registry/generic/kind.ts";
import { buildOpenApiV3, groupVersionsOf } from "./openapi_v3.ts";

interface Doc {
  body: Uint8Array<ArrayBuffer>;
  hash: string;
}

async function sha512Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-512", bytes));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("").toUpperCase();
}

/** Serves the OpenAPI v3 documents of the kinds `kinds()` returns. */
export class OpenApiV3Handler {
  readonly #kinds: () => readonly KindDef[];
  readonly #served: () => ReadonlySet<string>;
  readonly #model: SchemaModel;
  #docs?: Promise<Map<string, Doc>>;
  readonly #remote?: () => ReadonlyMap<string, Doc>;

  /**
   * `kinds` and `served` (the verbs with handlers) are read again after {@link invalidate};
   * `remote` adds the documents of group versions served by extension API servers.
   */
  constructor(
    kinds: () => readonly KindDef[],
    served: () => ReadonlySet<string>,
    model: SchemaModel = builtinSchemaModel(),
    remote?: () => ReadonlyMap<string, Doc>,
  ) {
    this.#kinds = kinds;
    this.#served = served;
    this.#model = model;
    this.#remote = remote;
  }

  /** Drops the cached documents (the served kinds changed). */
  invalidate(): void {
    this.#docs = undefined;
  }

  #build(): Promise<Map<string, Doc>> {
    this.#docs ??= (async () => {
      const kinds = this.#kinds();
      const served = this.#served();
      const docs = new Map<string, Doc>();
      for (const gv of groupVersionsOf(kinds)) {
        const doc = buildOpenApiV3(
          this.#model,
          gv.group,
          gv.version,
          kinds.filter((k) => k.group === gv.group && k.version === gv.version),
          served,
        );
        const body = new TextEncoder().encode(JSON.stringify(doc));
        docs.set(gv.path, { body, hash: await sha512Hex(body) });
      }
      return docs;
    })();
    return this.#docs;
  }

  /** Answers `/openapi/v3…` requests; undefined for other paths. */
  async handle(req: Request, url: URL): Promise<Response | undefined> {
    const path = url.pathname;
    if (path !== "/openapi/v3" && path !== "/openapi/v3/" && !path.startsWith("/openapi/v3/")) {
      return undefined;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      return new Response("method not allowed\n", { status: 405 });
    }
    const docs = new Map([...await this.#build(), ...this.#remote?.() ?? []]);
    if (path === "/openapi/v3" || path === "/openapi/v3/") {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      for (const [p, d] of docs) {
        paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${d.hash}` };
      }
      return new Response(JSON.stringify({ paths }), {
        headers: { "Content-Type": "application/json", "Cache-Control": "no-cache, private" },
      });
    }
    const gv = path.slice("/openapi/v3/".length).replace(/\/$/, "");
    const doc = docs.get(gv);
    if (!doc) return new Response("404 page not found\n", { status: 404 });
    if (!acceptsJson(req.headers.get("accept"))) {
      return new Response("406 Not Acceptable\n", { status: 406 });
    }
    const etag = `"${doc.hash}"`;
    const headers = new Headers({ "Content-Type": "application/json", ETag: etag });
    const hash = url.searchParams.get("hash");
    if (hash !== null && hash !== "") {
      if (hash !== doc.hash) {
        return new Response(null, {
          status: 301,
          headers: { Location: `/openapi/v3/${gv}?hash=${doc.hash}` },
        });
      }
      headers.set("Vary", "Accept");
      headers.set("Cache-Control", "public, immutable");
      headers.set("Expires", new Date(Date.now() + 365 * 86400_000).toUTCString());
    } else {
      headers.set("Cache-Control", "no-cache, private");
    }
    const inm = req.headers.get("if-none-match");
    if (inm && inm.split(",").map((s) => s.trim()).includes(etag)) {
      return new Response(null, { status: 304, headers });
    }
    return new Response(req.method === "HEAD" ? null : doc.body, { headers });
  }
}

function acceptsJson(accept: string | null): boolean {
  if (!accept || accept.trim() === "") return true;
  return accept.split(",").some((r) => {
    const t = r.split(";")[0].trim().toLowerCase();
    return t === "*/*" || t === "application/*" || t === "application/json";
  });
}
