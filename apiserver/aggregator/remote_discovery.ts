/**
 * The discovery documents of the remote APIServices' group versions, fetched from their
 * extension API servers (a GET of `/apis/<group>/<version>` as `system:kube-aggregator` in
 * `system:masters`, as kube-aggregator's discovery manager asks) and cached: fetched again when
 * the APIService changes and every refresh period; a failed fetch keeps the last document,
 * marked stale; a deleted APIService's document is dropped. It also answers every group
 * version's priorities from the APIServices, for discovery's order.
 *
 * @module
 */
import type { Logger } from "../../shared/log/mod.ts";
import type { ApiServiceCache, ApiServiceInfo } from "./api_service_cache.ts";
import {
  type ApiServicePriority,
  builtinPriority,
  CUSTOM_RESOURCE_PRIORITY,
} from "./priorities.ts";
import type { ProxyTransport } from "./proxy_transport.ts";
import { fetchOpenApiV3, type OpenApiDoc } from "./remote_openapi.ts";
import { fetchOpenApiV2, type OpenApiV2Doc } from "./remote_openapi_v2.ts";

/** A remote group version as discovery lists it. */
export interface RemoteGroupVersion {
  group: string;
  version: string;
  /** The APIResourceList's resources, once fetched. */
  resources?: Record<string, unknown>[];
  /** The last fetch failed (the resources are from an earlier one). */
  stale: boolean;
}

interface Entry {
  resources?: Record<string, unknown>[];
  /** The OpenAPI v3 document, when the extension publishes one. */
  openapi?: OpenApiDoc;
  /** The OpenAPI v2 document, with its ETag. */
  openapiV2?: OpenApiV2Doc;
  stale: boolean;
  fetching?: Promise<void>;
}

/** See the module documentation. */
export class RemoteDiscovery {
  readonly #cache: ApiServiceCache;
  readonly #transport: ProxyTransport;
  readonly #logger?: Logger;
  readonly #refreshMs: number;
  readonly #entries = new Map<string, Entry>();
  #unsubscribe?: () => void;
  #timer?: ReturnType<typeof setInterval>;
  #stopped = false;
  /** Counts changes of the remote OpenAPI v2 documents. */
  #v2Generation = 0;

  constructor(opts: {
    cache: ApiServiceCache;
    transport: ProxyTransport;
    logger?: Logger;
    refreshMs?: number;
  }) {
    this.#cache = opts.cache;
    this.#transport = opts.transport;
    this.#logger = opts.logger;
    this.#refreshMs = opts.refreshMs ?? 30_000;
  }

  /** Fetches every remote group version, then follows the APIServices. */
  start(): void {
    this.#unsubscribe = this.#cache.onChange((names) => names.forEach((n) => this.refresh(n)));
    for (const api of this.#cache.all()) this.refresh(api.name);
    this.#timer = setInterval(() => {
      for (const api of this.#cache.all()) this.refresh(api.name);
    }, this.#refreshMs);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    clearInterval(this.#timer);
    await Promise.all([...this.#entries.values()].map((e) => e.fetching));
  }

  /** Fetches one APIService's document again (or drops it when the APIService is gone). */
  refresh(name: string): Promise<void> {
    const api = this.#cache.get(name);
    if (!api?.service) {
      if (this.#entries.get(name)?.openapiV2) this.#v2Generation++;
      this.#entries.delete(name);
      return Promise.resolve();
    }
    const entry = this.#entries.get(name) ?? { stale: false };
    this.#entries.set(name, entry);
    if (this.#stopped || entry.fetching) return entry.fetching ?? Promise.resolve();
    entry.fetching = this.#fetch(api).then(async (resources) => {
      entry.resources = resources;
      entry.stale = false;
      entry.openapi = await fetchOpenApiV3(this.#transport, api).catch(() => entry.openapi);
      const v2 = await fetchOpenApiV2(this.#transport, api, entry.openapiV2)
        .catch(() => entry.openapiV2);
      if (v2 !== entry.openapiV2) this.#v2Generation++;
      entry.openapiV2 = v2;
    }, (err) => {
      entry.stale = true;
      this.#logger?.info("aggregated discovery fetch failed", {
        apiService: name,
        err: String(err),
      });
    }).finally(() => entry.fetching = undefined);
    return entry.fetching;
  }

  /** Every remote group version (those whose document was never fetched without resources). */
  groupVersions(): RemoteGroupVersion[] {
    const out: RemoteGroupVersion[] = [];
    for (const api of this.#cache.all()) {
      if (!api.service) continue;
      const e = this.#entries.get(api.name);
      out.push({
        group: api.group,
        version: api.version,
        resources: e?.resources,
        stale: !!e?.stale,
      });
    }
    return out;
  }

  /** The OpenAPI v3 documents of the remote group versions, by path (`apis/<group>/<version>`). */
  openApiDocs(): Map<string, OpenApiDoc> {
    const out = new Map<string, OpenApiDoc>();
    for (const api of this.#cache.all()) {
      const doc = api.service ? this.#entries.get(api.name)?.openapi : undefined;
      if (doc) out.set(`apis/${api.group}/${api.version}`, doc);
    }
    return out;
  }

  /**
   * The OpenAPI v2 documents of the remote APIServices, highest priority first, and a number
   * that changes whenever one of them does.
   */
  openApiV2Docs(): { generation: number; docs: Record<string, unknown>[] } {
    const apis = this.#cache.all().filter((a) => a.service && this.#entries.get(a.name)?.openapiV2)
      .sort((a, b) =>
        b.groupPriorityMinimum - a.groupPriorityMinimum || b.versionPriority - a.versionPriority ||
        (a.name < b.name ? -1 : 1)
      );
    return {
      generation: this.#v2Generation,
      docs: apis.map((a) => this.#entries.get(a.name)!.openapiV2!.doc),
    };
  }

  /** The priorities of a group version: its APIService's, else kube's table, else a CRD's. */
  priority(group: string, version: string): ApiServicePriority {
    const api = this.#cache.forGroupVersion(group, version);
    if (api) return { group: api.groupPriorityMinimum, version: api.versionPriority };
    return builtinPriority(group, version) ?? CUSTOM_RESOURCE_PRIORITY;
  }

  async #fetch(api: ApiServiceInfo): Promise<Record<string, unknown>[]> {
    const res = await this.#transport.send(api, {
      method: "GET",
      path: `/apis/${api.group}/${api.version}`,
      headers: {
        accept: "application/json",
        "x-remote-user": "system:kube-aggregator",
        "x-remote-group": "system:masters",
      },
      timeoutMs: 5_000,
    });
    const text = await new Response(res.body).text();
    if (res.status !== 200) throw new Error(`discovery answered ${res.status}`);
    const doc = JSON.parse(text) as { resources?: unknown };
    if (!Array.isArray(doc.resources)) throw new Error("not an APIResourceList");
    return doc.resources.filter((r): r is Record<string, unknown> =>
      typeof r === "object" && r !== null
    );
  }
}
