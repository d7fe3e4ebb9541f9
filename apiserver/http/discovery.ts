/**
 * Discovery: `/api`, `/apis`, `/apis/{group}`, `/api/v1`, `/apis/{group}/{version}` in the
 * legacy format, and aggregated discovery v2 (APIGroupDiscoveryList) when the Accept header
 * asks for it, with an ETag and 304 on If-None-Match.
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { Store } from "../registry/generic/store.ts";
import {
  CUSTOM_RESOURCE_PATCH_TYPES,
  type KindDef,
  type SubresourceDef,
  type Verb,
} from "../registry/generic/kind.ts";
import { compareKubeAwareVersions } from "./version_priority.ts";
import { parseAccept } from "./negotiation.ts";
import { createHash } from "node:crypto";

/** The Content-Type of aggregated discovery v2. */
export const AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

const VERB_ORDER = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/** A group version served by another server (a remote APIService). */
export interface RemoteGroupVersion {
  group: string;
  version: string;
  /** Its APIResourceList's resources, once fetched from the extension. */
  resources?: Record<string, unknown>[];
  /** The last fetch failed: the resources are an earlier answer. */
  stale: boolean;
}

/** What the aggregator adds to discovery: remote group versions and every one's priorities. */
export interface AggregatedGroups {
  remote(): RemoteGroupVersion[];
  /** `groupPriorityMinimum` and `versionPriority` of a group version. */
  priority(group: string, version: string): { group: number; version: number };
  /** Kube's order of versions of equal priority (negative when `a` comes first). */
  compareVersions(a: string, b: string): number;
}

/** kube-aggregator lists its own group first, above every priority an APIService may have. */
const APIREGISTRATION_PRIORITY = 20001;

/**
 * Serves discovery requests; `servedVerbs` reports which verbs have handlers. With
 * `aggregated`, remote group versions are listed too and groups come in kube-aggregator's
 * order: highest group priority first (apiregistration.k8s.io above all), then by name;
 * versions by priority, then in kube's version order.
 */
export class Discovery {
  readonly #registry: ResourceRegistry;
  readonly #servedVerbs: () => Set<string>;
  readonly #aggregation?: AggregatedGroups;

  constructor(
    registry: ResourceRegistry,
    servedVerbs: () => Set<string>,
    aggregated?: AggregatedGroups,
  ) {
    this.#registry = registry;
    this.#servedVerbs = servedVerbs;
    this.#aggregation = aggregated;
  }

  /** Answers a discovery path, or undefined if the path is not a discovery path. */
  async handle(req: Request, url: URL): Promise<Response | undefined> {
    const path = url.pathname.replace(/\/+$/, "");
    const segs = path.split("/").filter((s) => s !== "");
    if (segs[0] !== "api" && segs[0] !== "apis") return undefined;
    if (req.method !== "GET" && req.method !== "HEAD") return undefined;
    if (segs.length === 1) {
      if (wantsAggregated(req.headers.get("accept"))) {
        return await this.#aggregated(req, segs[0] === "api");
      }
      return json(segs[0] === "api" ? this.#apiVersions(req, url) : this.#groupList());
    }
    if (segs[0] === "api" && segs.length === 2) {
      if (segs[1] !== "v1") throw StatusError.pathNotFound();
      return json(this.#resourceList("", "v1"));
    }
    if (segs[0] === "apis" && segs.length === 2) {
      const group = this.#groups().find((g) => g.name === segs[1]);
      if (!group) throw StatusError.pathNotFound();
      return json({ kind: "APIGroup", apiVersion: "v1", ...group });
    }
    if (segs[0] === "apis" && segs.length === 3) {
      if (!this.#registry.servesGroupVersion(segs[1], segs[2])) throw StatusError.pathNotFound();
      return json(this.#resourceList(segs[1], segs[2]));
    }
    return undefined;
  }

  #verbs(def: KindDef, own?: readonly Verb[]): string[] {
    const served = this.#servedVerbs();
    const verbs = own ?? def.verbs ?? VERB_ORDER;
    return VERB_ORDER.filter((v) => verbs.includes(v as Verb) && served.has(v));
  }

  #apiVersions(req: Request, url: URL) {
    const host = req.headers.get("host") ?? url.host;
    return {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: host }],
    };
  }

  /**
   * The groups with their versions. With the aggregator, in its priority order (see the
   * class); without it, in registration order with custom resource groups (priority 1000 in
   * kube, below every built-in group) after the built-in ones in name order, their versions in
   * kube-aware order (the first is preferred).
   */
  #groups() {
    const groups = new Map<string, string[]>();
    const custom = new Set<string>();
    const add = (group: string, version: string) => {
      const versions = groups.get(group) ?? [];
      if (!versions.includes(version)) versions.push(version);
      groups.set(group, versions);
    };
    for (const s of this.#registry.served()) {
      if (s.def.group === "") continue;
      add(s.def.group, s.def.version);
      if (s.def.patchTypes === CUSTOM_RESOURCE_PATCH_TYPES) custom.add(s.def.group);
    }
    for (const r of this.#aggregation?.remote() ?? []) if (r.group !== "") add(r.group, r.version);
    let entries = [...groups.entries()];
    if (this.#aggregation) this.#order(entries, this.#aggregation);
    else {
      for (const g of custom) groups.get(g)!.sort(compareKubeAwareVersions);
      entries = [
        ...entries.filter(([g]) => !custom.has(g)),
        ...entries.filter(([g]) => custom.has(g)).sort(([a], [b]) => a < b ? -1 : 1),
      ];
    }
    return entries.map(([name, versions]) => ({
      name,
      versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
    }));
  }

  /** Sorts groups and their versions in kube-aggregator's order (in place). */
  #order(entries: [string, string[]][], agg: AggregatedGroups): void {
    const groupPriority = new Map<string, number>();
    for (const [name, versions] of entries) {
      versions.sort((a, b) =>
        agg.priority(name, b).version - agg.priority(name, a).version ||
        agg.compareVersions(a, b)
      );
      groupPriority.set(
        name,
        name === "apiregistration.k8s.io"
          ? APIREGISTRATION_PRIORITY
          : Math.max(...versions.map((v) => agg.priority(name, v).group)),
      );
    }
    entries.sort(([a], [b]) =>
      groupPriority.get(b)! - groupPriority.get(a)! || (a < b ? -1 : a > b ? 1 : 0)
    );
  }

  /** The remote group version `group/version`, if one. */
  #remote(group: string, version: string): RemoteGroupVersion | undefined {
    return this.#aggregation?.remote().find((r) => r.group === group && r.version === version);
  }

  #groupList() {
    return { kind: "APIGroupList", apiVersion: "v1", groups: this.#groups() };
  }

  #stores(group: string, version: string): Store[] {
    return this.#registry.served().filter((s) => s.def.group === group && s.def.version === version)
      .sort((a, b) => a.def.plural.localeCompare(b.def.plural));
  }

  #resourceList(group: string, version: string) {
    const resources: Record<string, unknown>[] = [];
    for (const s of this.#stores(group, version)) {
      const d = s.def;
      const r: Record<string, unknown> = {
        name: d.plural,
        singularName: d.singular,
        namespaced: d.namespaced,
        kind: d.kind,
        verbs: this.#verbs(d),
      };
      if (d.shortNames?.length) r.shortNames = [...d.shortNames];
      if (d.categories?.length) r.categories = [...d.categories];
      if (!d.virtual && !d.computed) r.storageVersionHash = storageVersionHash(d);
      resources.push(r);
      for (const sub of d.subresources ?? []) {
        const rk = subresourceKind(d, sub);
        resources.push({
          name: `${d.plural}/${sub.name}`,
          singularName: "",
          namespaced: d.namespaced,
          ...(rk.group || rk.version ? { group: rk.group, version: rk.version } : {}),
          kind: rk.kind,
          verbs: this.#verbs(d, sub.verbs),
        });
      }
    }
    return {
      kind: "APIResourceList",
      apiVersion: "v1",
      groupVersion: group ? `${group}/${version}` : version,
      resources,
    };
  }

  /** One local group version in aggregated discovery's form. */
  #localVersion(group: string, version: string) {
    return {
      version,
      resources: this.#stores(group, version).map((s) => {
        const d = s.def;
        const r: Record<string, unknown> = {
          resource: d.plural,
          responseKind: { group: "", version: "", kind: d.kind },
          scope: d.namespaced ? "Namespaced" : "Cluster",
          singularResource: d.singular,
          verbs: this.#verbs(d),
        };
        if (d.shortNames?.length) r.shortNames = [...d.shortNames];
        if (d.categories?.length) r.categories = [...d.categories];
        if (d.subresources?.length) {
          r.subresources = d.subresources.map((sub) => ({
            subresource: sub.name,
            responseKind: subresourceKind(d, sub),
            verbs: this.#verbs(d, sub.verbs),
          }));
        }
        return r;
      }),
      freshness: "Current",
    };
  }

  /**
   * The groups in aggregated discovery's form; a remote group version whose document was not
   * fetched yet is left out, and so is a group left without versions.
   */
  #aggregatedItems(core: boolean) {
    const groups = core ? [{ name: "", versions: [{ version: "v1" }] }] : this.#groups();
    const items = groups.map((g) => ({
      metadata: { name: g.name },
      versions: g.versions.flatMap(({ version }) => {
        const remote = this.#remote(g.name, version);
        if (!remote) return [this.#localVersion(g.name, version)];
        return remote.resources ? [remoteVersion(remote, remote.resources)] : [];
      }),
    }));
    return items.filter((i) => i.versions.length > 0);
  }

  async #aggregated(req: Request, core: boolean): Promise<Response> {
    const items = this.#aggregatedItems(core);
    const body = JSON.stringify({
      kind: "APIGroupDiscoveryList",
      apiVersion: "apidiscovery.k8s.io/v2",
      metadata: {},
      items,
    });
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)),
    );
    const etag = `"${
      [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("")
    }"`;
    const headers = { "Content-Type": AGGREGATED_V2, ETag: etag, Vary: "Accept" };
    const inm = req.headers.get("if-none-match");
    if (inm && inm.split(",").map((s) => s.trim()).includes(etag)) {
      return new Response(null, { status: 304, headers });
    }
    return new Response(req.method === "HEAD" ? null : body, { status: 200, headers });
  }
}

/**
 * Kubernetes' storage version hash of a kind: base64 of the first 8 bytes of the SHA-256 of
 * `group/version/kind` of the version it is stored as (the same for every served version).
 */
export function storageVersionHash(def: KindDef): string {
  const s = def.servedFrom?.storage ?? def;
  const digest = createHash("sha256").update(`${s.group}/${s.version}/${s.kind}`).digest();
  return digest.subarray(0, 8).toString("base64");
}

/** A remote group version's APIResourceList resources in aggregated discovery's form. */
function remoteVersion(r: RemoteGroupVersion, list: Record<string, unknown>[]) {
  const kindOf = (x: Record<string, unknown>) => ({
    group: String(x.group ?? ""),
    version: String(x.version ?? ""),
    kind: String(x.kind ?? ""),
  });
  const resources = list.filter((x) => !String(x.name).includes("/")).map((x) => {
    const out: Record<string, unknown> = {
      resource: x.name,
      responseKind: kindOf(x),
      scope: x.namespaced ? "Namespaced" : "Cluster",
      singularResource: x.singularName ?? "",
      verbs: Array.isArray(x.verbs) ? x.verbs : [],
    };
    if (Array.isArray(x.shortNames) && x.shortNames.length) out.shortNames = x.shortNames;
    if (Array.isArray(x.categories) && x.categories.length) out.categories = x.categories;
    const subs = list.filter((s) => String(s.name).startsWith(`${x.name}/`));
    if (subs.length > 0) {
      out.subresources = subs.map((s) => ({
        subresource: String(s.name).slice(String(x.name).length + 1),
        responseKind: kindOf(s),
        verbs: Array.isArray(s.verbs) ? s.verbs : [],
      }));
    }
    return out;
  });
  return { version: r.version, resources, freshness: r.stale ? "Stale" : "Current" };
}

function wantsAggregated(accept: string | null): boolean {
  for (const m of parseAccept(accept)) {
    if (m.type !== "application" || m.subtype !== "json") continue;
    if (m.params.as === undefined) return false;
    if (
      m.params.g === "apidiscovery.k8s.io" && m.params.v === "v2" &&
      m.params.as === "APIGroupDiscoveryList"
    ) return true;
  }
  return false;
}

function json(value: unknown): Response {
  return new Response(JSON.stringify(value), {
    status: 200,
    headers: { "Content-Type": "application/json" },
  });
}

/**
 * The kind discovery names for a subresource, as kube-apiserver's APIResource has it: group
 * and version only when they differ from the resource's own (autoscaling/v1 Scale on apps/v1),
 * else empty; its `requestKind` (`Binding`, `TokenRequest`, `PodExecOptions`), else the
 * resource's kind.
 */
export function subresourceKind(
  d: KindDef,
  sub: SubresourceDef,
): { group: string; version: string; kind: string } {
  const rk = sub.requestKind;
  const other = rk && (rk.group !== d.group || rk.version !== d.version);
  return {
    group: other ? rk.group : "",
    version: other ? rk.version : "",
    kind: rk?.kind ?? d.kind,
  };
}
