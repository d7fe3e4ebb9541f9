/**
 * A typed REST client for the Kubernetes API, used by the node agent and the tests. It speaks
 * JSON, or with `protobuf: true` Kubernetes' Protobuf envelope for the kinds that have one,
 * over HTTPS (the kubeconfig's CA, bearer token or client certificate), and turns every
 * non-2xx answer carrying a Status into a StatusError. A Protobuf response whose prefix is not
 * `k8s\0` is rejected, as the format requires.
 *
 * @module
 */
import type { DeleteOptions, KubeList, KubeObject, Status } from "../api/meta/v1/types.ts";
import { StatusError } from "../errors/status_error.ts";
import { statusErrorFromResponse } from "../errors/status_error_from_response.ts";
import {
  decodeObject,
  encodeObject,
  hasProtobuf,
  PROTOBUF_MEDIA_TYPE,
} from "../codec/protobuf/mod.ts";
import { type ClientConfig, loadKubeconfig } from "./kubeconfig.ts";
import { ExecCredentialProvider } from "./exec_credential.ts";
import { resourcePath, type ResourceRef } from "./resource_path.ts";

/** Query parameters; undefined values are left out, arrays repeat the parameter. */
export type Query = Record<string, string | number | boolean | string[] | undefined>;

/** Options of list(). */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: "Exact" | "NotOlderThan";
}

/** A raw response. */
export interface RawResponse {
  status: number;
  headers: Headers;
  /** The body as text ("" when empty). */
  body: string;
}

/** One watch event. */
export interface WatchEvent<T = KubeObject> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

/** Patch content types. */
export type PatchType =
  | "application/json-patch+json"
  | "application/merge-patch+json"
  | "application/strategic-merge-patch+json"
  | "application/apply-patch+yaml";

/** Options of request(). */
export interface RequestOptions {
  query?: Query;
  /** A JSON-serializable body, or a string/bytes sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

function buildQuery(query: Query | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) { for (const item of v) params.append(k, item); }
    else params.append(k, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

/** Options of the client. */
export interface RestClientOptions {
  /**
   * Send and accept Protobuf for kinds that have it (JSON stays the fallback for the others),
   * as client-go's typed clients do.
   */
  protobuf?: boolean;
}

function isProtobuf(contentType: string | null): boolean {
  return (contentType ?? "").split(";")[0].trim().toLowerCase() === PROTOBUF_MEDIA_TYPE;
}

/** Decodes a response body by its Content-Type; a bad Protobuf prefix is rejected. */
function decodeResponse(contentType: string | null, bytes: Uint8Array): unknown {
  if (isProtobuf(contentType)) return decodeObject(bytes);
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** A Kubernetes REST client. Call close() when done. */
export class RestClient {
  config: ClientConfig;
  #http?: Deno.HttpClient;
  /** Connection pools replaced by a certificate rotation, closed with the client. */
  readonly #retired: Deno.HttpClient[] = [];
  /** The credential plugin of `user.exec`, if any. */
  readonly exec?: ExecCredentialProvider;
  readonly #base: string;
  readonly #protobuf: boolean;

  constructor(config: ClientConfig, options: RestClientOptions = {}) {
    this.#protobuf = !!options.protobuf;
    if (config.insecureSkipTlsVerify) {
      throw new Error("insecure-skip-tls-verify is not supported by this client; give a CA");
    }
    this.config = config;
    if (config.exec) {
      this.exec = new ExecCredentialProvider(config.exec, { cluster: config.execCluster });
    }
    this.#base = config.server.replace(/\/+$/, "");
    const tls: Deno.CreateHttpClientOptions & Partial<Deno.TlsCertifiedKeyPem> = {};
    if (config.caPem) tls.caCerts = [config.caPem];
    if (config.clientCertPem && config.clientKeyPem) {
      tls.cert = config.clientCertPem;
      tls.key = config.clientKeyPem;
    }
    if (this.#base.startsWith("https:")) {
      this.#http = Deno.createHttpClient(tls as Deno.CreateHttpClientOptions);
    }
  }

  /** A client for a kubeconfig's current (or given) context. */
  static async fromKubeconfig(
    path: string,
    options: { context?: string } & RestClientOptions = {},
  ): Promise<RestClient> {
    return new RestClient(await loadKubeconfig(path, options), options);
  }

  /** Releases the connection pool. */
  close(): void {
    this.#http?.close();
    for (const old of this.#retired.splice(0)) old.close();
  }

  /**
   * Uses a new client certificate from now on: new requests go over new connections, the
   * requests and watches in progress finish on the old ones (closed with the client).
   */
  rotateClientCertificate(certPem: string, keyPem: string): void {
    this.config = { ...this.config, clientCertPem: certPem, clientKeyPem: keyPem };
    if (!this.#base.startsWith("https:")) return;
    const tls: Deno.CreateHttpClientOptions & Partial<Deno.TlsCertifiedKeyPem> = {
      cert: certPem,
      key: keyPem,
    };
    if (this.config.caPem) tls.caCerts = [this.config.caPem];
    if (this.#http) this.#retired.push(this.#http);
    this.#http = Deno.createHttpClient(tls as Deno.CreateHttpClientOptions);
  }

  /** Sends one request and returns the raw answer (any status). */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<RawResponse> {
    const res = await this.#fetch(method, path, options);
    return { status: res.status, headers: res.headers, body: await res.text() };
  }

  /**
   * Sends a request; with a credential plugin, with its credential, and after a 401 once more
   * with a new one.
   */
  async #fetch(method: string, path: string, options: RequestOptions): Promise<Response> {
    if (!this.exec) return await this.#send(method, path, options);
    const first = await this.#send(method, path, options, await this.#execToken());
    if (first.status !== 401) return first;
    await first.body?.cancel();
    this.exec.invalidate();
    return await this.#send(method, path, options, await this.#execToken());
  }

  /** The plugin's token, or undefined after switching to the certificate it returned. */
  async #execToken(): Promise<string | undefined> {
    const credential = await this.exec!.get();
    if ("token" in credential) return credential.token;
    if (credential.clientCertPem !== this.config.clientCertPem) {
      this.rotateClientCertificate(credential.clientCertPem, credential.clientKeyPem);
    }
    return undefined;
  }

  async #send(
    method: string,
    path: string,
    options: RequestOptions,
    execToken?: string,
  ): Promise<Response> {
    const headers = new Headers(options.headers);
    if (!headers.has("accept")) headers.set("accept", "application/json");
    const token = execToken ?? this.config.token;
    if (token) headers.set("authorization", `Bearer ${token}`);
    if (this.config.userAgent) headers.set("user-agent", this.config.userAgent);
    let body: BodyInit | undefined;
    if (options.body !== undefined) {
      if (typeof options.body === "string" || options.body instanceof Uint8Array) {
        body = options.body as BodyInit;
      } else {
        body = JSON.stringify(options.body);
      }
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    const init: RequestInit & { client?: Deno.HttpClient } = { method, headers, body };
    if (options.signal) init.signal = options.signal;
    if (this.#http) init.client = this.#http;
    return await fetch(`${this.#base}${path}${buildQuery(options.query)}`, init);
  }

  async #json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const headers = { ...options.headers };
    let body = options.body;
    if (this.#protobuf) {
      headers.accept ??= `${PROTOBUF_MEDIA_TYPE}, application/json`;
      const obj = body as { apiVersion?: unknown; kind?: unknown } | undefined;
      if (
        obj && typeof obj === "object" && !(obj instanceof Uint8Array) &&
        typeof obj.apiVersion === "string" && typeof obj.kind === "string" &&
        hasProtobuf(obj.apiVersion, obj.kind) && headers["content-type"] === undefined
      ) {
        body = encodeObject(obj as Record<string, unknown>);
        headers["content-type"] = PROTOBUF_MEDIA_TYPE;
      }
    }
    const res = await this.#fetch(method, path, { ...options, headers, body });
    const bytes = new Uint8Array(await res.arrayBuffer());
    const contentType = res.headers.get("content-type");
    if (res.status < 200 || res.status > 299) {
      let body = new TextDecoder().decode(bytes);
      if (isProtobuf(contentType)) {
        try {
          body = JSON.stringify(decodeObject(bytes));
        } catch { /* not a Protobuf object: decoded as unstructured */ }
      }
      throw statusErrorFromResponse({ status: res.status, body, headers: res.headers }, method);
    }
    try {
      return decodeResponse(contentType, bytes) as T;
    } catch (err) {
      throw StatusError.internal(
        `invalid response to ${method} ${path}: ${(err as Error).message}`,
      );
    }
  }

  /** GET one object. */
  get<T = KubeObject>(ref: ResourceRef, query?: Query): Promise<T> {
    return this.#json<T>("GET", resourcePath(ref), { query });
  }

  /** GET a collection. */
  list<T = KubeObject>(ref: ResourceRef, options: ListOptions = {}): Promise<KubeList<T>> {
    return this.#json<KubeList<T>>("GET", resourcePath(ref), { query: { ...options } });
  }

  /** POST a new object to the collection of `ref` (its name is ignored). */
  create<T = KubeObject>(ref: ResourceRef, object: T, query?: Query): Promise<T> {
    return this.#json<T>("POST", resourcePath({ ...ref, name: undefined }), {
      body: object,
      query,
    });
  }

  /** PUT an object (`ref.name` or the object's own name). */
  update<T extends KubeObject = KubeObject>(
    ref: ResourceRef,
    object: T,
    query?: Query,
  ): Promise<T> {
    const name = ref.name ?? object.metadata?.name;
    if (!name) throw new Error("update needs a name");
    return this.#json<T>("PUT", resourcePath({ ...ref, name }), { body: object, query });
  }

  /** PATCH an object with the given patch type. */
  patch<T = KubeObject>(
    ref: ResourceRef,
    patch: unknown,
    contentType: PatchType,
    query?: Query,
  ): Promise<T> {
    const body = typeof patch === "string" ? patch : JSON.stringify(patch);
    return this.#json<T>("PATCH", resourcePath(ref), {
      body,
      query,
      headers: { "content-type": contentType },
    });
  }

  /** DELETE an object (or a collection, without a name) with optional DeleteOptions. */
  delete<T = KubeObject | Status>(
    ref: ResourceRef,
    options?: DeleteOptions,
    query?: Query,
  ): Promise<T> {
    const body = options ? { kind: "DeleteOptions", apiVersion: "v1", ...options } : undefined;
    return this.#json<T>("DELETE", resourcePath(ref), { body, query });
  }

  /**
   * Watches a collection: calls `onEvent` for each event of the newline-delimited JSON stream
   * until the server ends it or `signal` aborts (then it resolves quietly). A non-2xx answer
   * throws a StatusError.
   */
  async watch<T = KubeObject>(
    path: string | ResourceRef,
    query: Query,
    onEvent: (event: WatchEvent<T>) => void | Promise<void>,
    signal?: AbortSignal,
  ): Promise<void> {
    const p = typeof path === "string" ? path : resourcePath(path);
    let res: Response;
    try {
      res = await this.#fetch("GET", p, { query: { ...query, watch: "true" }, signal });
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
    if (res.status < 200 || res.status > 299) {
      const body = await res.text();
      throw statusErrorFromResponse({ status: res.status, body, headers: res.headers }, "GET");
    }
    if (!res.body) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) await onEvent(parseEvent<T>(line));
        }
      }
      if (buffer.trim()) await onEvent(parseEvent<T>(buffer.trim()));
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    } finally {
      await reader.cancel().catch(() => {});
    }
  }
}

function parseEvent<T>(line: string): WatchEvent<T> {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    throw StatusError.internal("invalid JSON in the watch stream");
  }
  if (typeof event !== "object" || event === null || !("type" in event) || !("object" in event)) {
    throw StatusError.internal("malformed watch event");
  }
  return event as WatchEvent<T>;
}
