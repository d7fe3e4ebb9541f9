/**
 * Our /api and /apis discovery against kube-apiserver 1.32's default discovery
 * (test/testdata/discovery/kube_1_32_resources.json): every resource and subresource we serve
 * has kube's name, singular name, scope, kind, verbs, short names and categories, and the kube
 * resources we do not serve yet are exactly NOT_SERVED_YET (shrink it as kinds land).
 */
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { call } from "./foundation_helpers.ts";

interface ApiResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  group?: string;
  version?: string;
}

const TABLE_PATH = new URL("../testdata/discovery/kube_1_32_resources.json", import.meta.url);

/** Kube 1.32 resources (`groupVersion resource`) this server does not serve yet. */
const NOT_SERVED_YET: readonly string[] = [];

/** The fields discovery compares; the rest (storageVersionHash) is ours to choose. */
function comparable(r: ApiResource): ApiResource {
  const out: ApiResource = {
    name: r.name,
    singularName: r.singularName,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: [...r.verbs].sort(),
  };
  if (r.shortNames?.length) out.shortNames = r.shortNames;
  if (r.categories?.length) out.categories = r.categories;
  if (r.group) out.group = r.group;
  if (r.version) out.version = r.version;
  return out;
}

async function served(s: TestServer): Promise<Map<string, ApiResource>> {
  const gvs = ["v1"];
  const groups = await call<{ groups: { versions: { groupVersion: string }[] }[] }>(
    s,
    "GET",
    "/apis",
  );
  for (const g of groups.body.groups) gvs.push(...g.versions.map((v) => v.groupVersion));
  const out = new Map<string, ApiResource>();
  for (const gv of gvs) {
    const path = gv === "v1" ? "/api/v1" : `/apis/${gv}`;
    const list = await call<{ resources: ApiResource[] }>(s, "GET", path);
    assert.equal(list.status, 200, path);
    for (const r of list.body.resources) out.set(`${gv} ${r.name}`, comparable(r));
  }
  return out;
}

Deno.test("discovery matches kube-apiserver 1.32's resource table", async () => {
  const table = JSON.parse(await Deno.readTextFile(TABLE_PATH)) as {
    groupVersions: Record<string, ApiResource[]>;
  };
  const kube = new Map<string, ApiResource>();
  for (const [gv, resources] of Object.entries(table.groupVersions)) {
    for (const r of resources) kube.set(`${gv} ${r.name}`, comparable(r));
  }
  const s = await startTestServer();
  try {
    const ours = await served(s);
    // The resource metrics are metrics-server's, served here too: not in kube-apiserver's table.
    const metricsServer = ["metrics.k8s.io/v1beta1 nodes", "metrics.k8s.io/v1beta1 pods"];
    for (const k of metricsServer) assert.ok(ours.delete(k), k);
    const unknown = [...ours.keys()].filter((k) => !kube.has(k));
    assert.deepEqual(unknown, [], "served resources kube 1.32 does not have");
    const differing = [...ours].filter(([key, entry]) => {
      try {
        assert.deepEqual(entry, kube.get(key));
        return false;
      } catch {
        return true;
      }
    }).map(([key, entry]) => ({ key, ours: entry, kube: kube.get(key) }));
    assert.deepEqual(differing, [], "entries that differ from kube 1.32's");
    const missing = [...kube.keys()].filter((k) => !ours.has(k)).sort();
    assert.deepEqual(missing, [...NOT_SERVED_YET].sort(), "kube 1.32 resources not served yet");
  } finally {
    await s.close();
  }
});
