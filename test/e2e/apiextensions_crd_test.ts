/**
 * End-to-end over HTTPS for apiextensions.k8s.io/v1 CustomResourceDefinition: create with kube's
 * defaults, get, list (Table), update, patch (merge, json, apply), status only through `/status`,
 * watch, invalid CRDs (422 with causes), immutable fields, deletion marked by the cleanup
 * finalizer, discovery, and kubectl apply/get/explain where kubectl exists.
 */
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.ts";
import {
  ApiextensionsV1Api,
  KubeConfig,
  type V1CustomResourceDefinition,
} from "@kubernetes/client-node";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import { type Json, watch } from "./_watch_helpers.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const PB = "application/vnd.kubernetes.protobuf";

async function withServer(fn: (t: TestServer) => Promise<void>) {
  const t = await startTestServer();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

async function send(t: TestServer, method: string, path: string, body: unknown, type?: string) {
  const res = await t.fetch(path, {
    method,
    headers: { "content-type": type ?? "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A valid CRD of `widgets.example.com`. */
export function widgetCrd(extra: Json = {}): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "widgets", kind: "Widget", shortNames: ["wd"] },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: { color: { type: "string" }, size: { type: "integer" } },
              },
            },
          },
        },
        subresources: { status: {} },
      }],
      ...extra,
    },
  };
}

function causes(body: Json): string[] {
  const details = body.details as { causes?: { field: string; message: string }[] };
  return (details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
}

Deno.test("CustomResourceDefinition: create defaults, get, list as Table, status only via /status", async () => {
  await withServer(async (t) => {
    const created = await send(t, "POST", CRDS, widgetCrd());
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const spec = created.body.spec as Json;
    assert.deepEqual(spec.names, {
      plural: "widgets",
      kind: "Widget",
      shortNames: ["wd"],
      singular: "widget",
      listKind: "WidgetList",
    });
    assert.deepEqual(spec.conversion, { strategy: "None" });
    assert.deepEqual((created.body.status as Json).storedVersions, ["v1"]);
    assert.equal((created.body.metadata as Json).generation, 1);

    const got = await (await t.fetch(`${CRDS}/widgets.example.com`)).json();
    assert.equal(got.kind, "CustomResourceDefinition");

    const table = await (await t.fetch(CRDS, { headers: { accept: TABLE } })).json();
    assert.deepEqual(
      table.columnDefinitions.map((c: Json) => c.name),
      ["Name", "Created At"],
    );
    assert.equal(table.rows[0].cells[0], "widgets.example.com");

    // The main resource ignores status; /status writes it.
    const upd = structuredClone(got);
    upd.status = { storedVersions: ["v1"], acceptedNames: { plural: "x", kind: "X" } };
    upd.spec.names.shortNames = ["wd", "wdg"];
    const put = await send(t, "PUT", `${CRDS}/widgets.example.com`, upd);
    assert.equal(put.status, 200, JSON.stringify(put.body));
    // The body's status is ignored (the names are "" at create, or the controller's).
    assert.notEqual(((put.body.status as Json).acceptedNames as Json).plural, "x");
    assert.equal((put.body.metadata as Json).generation, 2);
    // Unconditional writes (no resourceVersion): the lifecycle controller writes status too.
    const unconditional = (o: Json) => ({ ...(o.metadata as Json), resourceVersion: undefined });
    const st = await send(t, "PUT", `${CRDS}/widgets.example.com/status`, {
      ...put.body,
      metadata: unconditional(put.body),
      status: { storedVersions: ["v1"], acceptedNames: { plural: "widgets", kind: "Widget" } },
    });
    assert.equal(st.status, 200, JSON.stringify(st.body));
    assert.equal(((st.body.status as Json).acceptedNames as Json).plural, "widgets");
    assert.equal((st.body.metadata as Json).generation, 2);
    const badStatus = await send(t, "PUT", `${CRDS}/widgets.example.com/status`, {
      ...st.body,
      metadata: unconditional(st.body),
      status: { storedVersions: ["v1"], acceptedNames: { plural: "Bad_Name", kind: "Widget" } },
    });
    assert.equal(badStatus.status, 422);
    assert.match(causes(badStatus.body)[0], /^status\.acceptedNames\.plural: Invalid value/);
  });
});

Deno.test("CustomResourceDefinition: patches, watch and delete marked by the cleanup finalizer", async () => {
  await withServer(async (t) => {
    const w = await watch(t, "watch=1", CRDS);
    try {
      assert.equal((await send(t, "POST", CRDS, widgetCrd())).status, 201);
      const merge = await send(
        t,
        "PATCH",
        `${CRDS}/widgets.example.com`,
        { spec: { names: { categories: ["all"] } } },
        "application/merge-patch+json",
      );
      assert.equal(merge.status, 200, JSON.stringify(merge.body));
      assert.deepEqual(((merge.body.spec as Json).names as Json).categories, ["all"]);
      const jp = await send(
        t,
        "PATCH",
        `${CRDS}/widgets.example.com`,
        // (spec.scope is immutable once the lifecycle controller established the CRD.)
        [{ op: "replace", path: "/spec/names/categories", value: ["all", "widgetry"] }],
        "application/json-patch+json",
      );
      assert.equal(jp.status, 200, JSON.stringify(jp.body));
      const applied = await send(
        t,
        "PATCH",
        `${CRDS}/widgets.example.com?fieldManager=me&force=true`,
        JSON.stringify(widgetCrd()),
        "application/apply-patch+yaml",
      );
      assert.equal(applied.status, 200, JSON.stringify(applied.body));
      const del = await t.fetch(`${CRDS}/widgets.example.com`, { method: "DELETE" });
      const gone = await del.json();
      assert.equal(del.status, 200);
      assert.deepEqual(gone.metadata.finalizers, ["customresourcecleanup.apiextensions.k8s.io"]);
      assert.ok(gone.metadata.deletionTimestamp);
      const terminating = gone.status.conditions.find((c: Json) => c.type === "Terminating");
      assert.equal(terminating.reason, "InstanceDeletionPending");
      // The cleanup controller removes the finalizer (no instances): the CRD goes away.
      await eventually("the CRD gone", async () => {
        const res = await t.fetch(`${CRDS}/widgets.example.com`);
        await res.body?.cancel();
        return res.status === 404 || undefined;
      });
      // The writes above and the controller's status writes, then the deletion.
      const types: string[] = [];
      while (types.at(-1) !== "DELETED") types.push(...(await w.take(1)).map((e) => e.type));
      assert.equal(types[0], "ADDED");
      assert.ok(types.slice(1, -1).every((t) => t === "MODIFIED"), types.join(","));
      assert.ok(types.length >= 6);
    } finally {
      await w.cancel();
    }
  });
});

Deno.test("CustomResourceDefinition: invalid CRDs are 422 with apiextensions' causes", async () => {
  await withServer(async (t) => {
    const bad = widgetCrd({
      group: "example",
      scope: "Galaxy",
      names: { plural: "widgets", kind: "Widget", shortNames: ["W_D"], listKind: "Widget" },
    });
    (bad.metadata as Json).name = "widgets.example.org";
    const versions = (bad.spec as Json).versions as Json[];
    versions.push({ ...versions[0], name: "V2", storage: true });
    const res = await send(t, "POST", CRDS, bad);
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.reason, "Invalid");
    const got = causes(res.body);
    for (
      const want of [
        'metadata.name: Invalid value: "widgets.example.org": must be spec.names.plural+"."+spec.group',
        'spec.group: Invalid value: "example": should be a domain with at least one dot',
        'spec.scope: Unsupported value: "Galaxy": supported values: "Cluster", "Namespaced"',
        "spec.versions[1].name: Invalid value: \"V2\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
      ]
    ) {
      assert.ok(got.includes(want), `missing ${want} in ${JSON.stringify(got, null, 1)}`);
    }
    assert.ok(
      got.some((c) => c.endsWith("must have exactly one version marked as storage version")),
      JSON.stringify(got),
    );
    assert.ok(got.some((c) => c.startsWith('spec.names.shortNames[0]: Invalid value: "W_D"')));

    // Immutable on update: group and plural.
    assert.equal((await send(t, "POST", CRDS, widgetCrd())).status, 201);
    // The lifecycle controller writes the status meanwhile: a stale read is 409, so read again.
    let upd!: Awaited<ReturnType<typeof send>>;
    for (let attempt = 0; attempt < 20; attempt++) {
      const cur = await (await t.fetch(`${CRDS}/widgets.example.com`)).json();
      cur.spec.group = "example.org";
      upd = await send(t, "PUT", `${CRDS}/widgets.example.com`, cur);
      if (upd.status !== 409) break;
    }
    assert.equal(upd.status, 422);
    assert.ok(
      causes(upd.body).includes('spec.group: Invalid value: "example.org": field is immutable'),
      JSON.stringify(causes(upd.body)),
    );
  });
});

Deno.test({
  name: "kubectl apply -f crd.yaml, get crd and explain crd",
  ignore: skipWithoutKubectl("the kubectl CRD tests"),
  fn: async () => {
    await withServer(async (t) => {
      const k = kubectlFor(t);
      const applied = ok(await kubectl(k, ["apply", "-f", "-"], JSON.stringify(widgetCrd())));
      assert.match(
        applied,
        /customresourcedefinition.apiextensions.k8s.io\/widgets.example.com created/,
      );
      const listed = ok(await kubectl(k, ["get", "crd"]));
      assert.match(listed, /^NAME\s+CREATED AT\n/);
      assert.match(listed, /widgets\.example\.com\s+\d{4}-/);
      const explained = ok(await kubectl(k, ["explain", "crd.spec.names"]));
      assert.match(explained, /KIND:\s+CustomResourceDefinition/);
      assert.match(explained, /listKind\s+<string>/);
      const schema = ok(await kubectl(k, ["explain", "crd.spec.versions.schema.openAPIV3Schema"]));
      assert.match(schema, /x-kubernetes-list-type\s+<string>/);
      const again = ok(await kubectl(k, ["apply", "-f", "-"], JSON.stringify(widgetCrd())));
      assert.match(again, /unchanged/);
      const other = widgetCrd();
      (other.metadata as Json).name = "gizmos.example.com";
      (other.spec as Json).names = { plural: "gizmos", kind: "Gizmo" };
      const ssa = ok(
        await kubectl(k, ["apply", "--server-side", "-f", "-"], JSON.stringify(other)),
      );
      assert.match(
        ssa,
        /customresourcedefinition.apiextensions.k8s.io\/gizmos.example.com serverside-applied/,
      );
      (other.spec as Json).versions[0].schema.openAPIV3Schema.properties.spec.properties.extra = {
        type: "string",
      };
      ok(await kubectl(k, ["apply", "--server-side", "-f", "-"], JSON.stringify(other)));
      const got = JSON.parse(
        ok(await kubectl(k, ["get", "crd", "gizmos.example.com", "-o", "json"])),
      );
      const props = got.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
      assert.deepEqual(Object.keys(props).sort(), ["color", "extra", "size"]);
    });
  },
});

Deno.test("CustomResourceDefinition: Protobuf round trip keeps JSON values and schema wrappers", async () => {
  await withServer(async (t) => {
    const crd = widgetCrd();
    const schema = (crd.spec as Json).versions[0].schema.openAPIV3Schema;
    schema.properties.spec.default = { color: "red" };
    schema.properties.spec.properties.size.maximum = 10.5;
    schema.properties.spec.properties.color.enum = ["red", "blue"];
    schema.properties.spec.properties.tags = {
      type: "array",
      items: { type: "string" },
      "x-kubernetes-list-type": "set",
    };
    schema.properties.spec.properties.labels = {
      type: "object",
      additionalProperties: { type: "string" },
    };
    const created = await t.fetch(CRDS, {
      method: "POST",
      headers: { "content-type": PB, accept: "application/json" },
      body: encodeObject(crd),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const asJson = await (await t.fetch(`${CRDS}/widgets.example.com`)).json();
    assert.deepEqual(asJson.spec.versions[0].schema, (crd.spec as Json).versions[0].schema);
    const res = await t.fetch(`${CRDS}/widgets.example.com`, { headers: { accept: PB } });
    assert.equal(res.headers.get("content-type"), PB);
    assert.deepEqual(decodeObject(new Uint8Array(await res.arrayBuffer())), asJson);
    const list = await t.fetch(CRDS, { headers: { accept: PB } });
    assert.equal(
      decodeObject(new Uint8Array(await list.arrayBuffer())).kind,
      "CustomResourceDefinitionList",
    );
  });
});

Deno.test({
  name: "@kubernetes/client-node creates, reads (with /status), lists and deletes a CRD",
  // The client's HTTP agent keeps sockets alive past a test's end.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withServer(async (t) => {
      const kc = new KubeConfig();
      kc.loadFromFile(t.server.kubeconfigPath);
      const api = kc.makeApiClient(ApiextensionsV1Api);
      const body = widgetCrd() as unknown as V1CustomResourceDefinition;
      const created = await api.createCustomResourceDefinition({ body });
      assert.equal(created.spec.names.listKind, "WidgetList");
      assert.deepEqual(created.status?.storedVersions, ["v1"]);
      const schema = created.spec.versions[0].schema?.openAPIV3Schema;
      assert.equal(schema?.properties?.spec.properties?.size.type, "integer");
      const got = await api.readCustomResourceDefinition({ name: "widgets.example.com" });
      assert.equal(got.metadata?.uid, created.metadata?.uid);
      const list = await api.listCustomResourceDefinition();
      assert.deepEqual(list.items.map((c) => c.metadata?.name), ["widgets.example.com"]);
      const status = await api.readCustomResourceDefinitionStatus({ name: "widgets.example.com" });
      // Empty at create; the lifecycle controller accepts the names soon after.
      assert.ok(["", "widgets"].includes(status.status?.acceptedNames?.plural ?? ""));
      const deleted = await api.deleteCustomResourceDefinition({ name: "widgets.example.com" });
      assert.equal(deleted.kind, "CustomResourceDefinition");
    });
  },
});
