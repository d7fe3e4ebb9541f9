/**
 * End-to-end over HTTPS for discovery.k8s.io/v1 EndpointSlice: create (defaults), get in JSON
 * and Protobuf, list as Table, update, the four patch types, watch, delete, validation of
 * addresses per address type and the immutable address type, and kubectl where it exists.
 */
import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { type Json, watch, write } from "./_watch_helpers.ts";

const PB = "application/vnd.kubernetes.protobuf";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const SLICES = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices";

function slice(name: string, addressType: string, addresses: string[], extra: Json = {}): Json {
  return {
    metadata: { name, labels: { "kubernetes.io/service-name": "web" } },
    addressType,
    endpoints: addresses.map((a) => ({ addresses: [a], conditions: { ready: true } })),
    ports: [{ name: "http", port: 80 }],
    ...extra,
  };
}

async function withServer(fn: (t: TestServer) => Promise<void>) {
  const t = await startTestServer();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

async function send(t: TestServer, method: string, path: string, type: string, body: unknown) {
  return await t.fetch(path, {
    method,
    headers: { "content-type": type },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function patch(t: TestServer, path: string, type: string, body: unknown, query = "") {
  const res = await send(t, "PATCH", `${path}${query}`, type, body);
  const json = await res.json();
  assert.equal(res.status, 200, `PATCH ${path} (${type}): ${JSON.stringify(json)}`);
  return json;
}

async function rejected(t: TestServer, method: string, path: string, body: Json) {
  const res = await send(t, method, path, "application/json", body);
  const json = await res.json();
  assert.equal(res.status, 422, JSON.stringify(json));
  return json.message as string;
}

Deno.test("EndpointSlices serve every verb in JSON, Protobuf and Table", async () => {
  await withServer(async (t) => {
    const w = await watch(t, "watch=true&labelSelector=kubernetes.io/service-name=web", SLICES);
    const created = await write(
      t,
      "POST",
      SLICES,
      slice("web-1", "IPv4", ["10.1.0.1", "10.1.0.2", "10.1.0.3", "10.1.0.4"], {
        ports: [{ port: 80 }, { name: "https", port: 443, protocol: "TCP", appProtocol: "https" }],
      }),
    );
    assert.equal(created.metadata.generation, 1);
    assert.deepEqual(created.ports[0], { name: "", protocol: "TCP", port: 80 });
    assert.equal((await w.next())?.type, "ADDED");
    const path = `${SLICES}/web-1`;
    const asJson = await (await t.fetch(path)).json();
    const res = await t.fetch(path, { headers: { accept: PB } });
    assert.equal(res.headers.get("content-type"), PB);
    const asPb = decodeObject(new Uint8Array(await res.arrayBuffer()));
    assert.deepEqual(asPb, asJson);
    const put = await t.fetch(path, {
      method: "PUT",
      headers: { "content-type": PB, accept: "application/json" },
      body: encodeObject(asPb),
    });
    assert.equal(put.status, 200, await put.clone().text());
    assert.deepEqual(await put.json(), asJson);
    const table = await (await t.fetch(SLICES, { headers: { accept: TABLE } })).json();
    assert.deepEqual(
      table.columnDefinitions.map((d: Json) => d.name),
      ["Name", "AddressType", "Ports", "Endpoints", "Age"],
    );
    assert.deepEqual(table.rows[0].cells.slice(0, 4), [
      "web-1",
      "IPv4",
      "80,443",
      "10.1.0.1,10.1.0.2,10.1.0.3 + 1 more...",
    ]);
    const merged = await patch(t, path, "application/merge-patch+json", {
      metadata: { labels: { merge: "yes" } },
    });
    assert.equal(merged.metadata.generation, 2, "a label change is a new generation");
    const annotated = await patch(t, path, "application/merge-patch+json", {
      metadata: { annotations: { note: "yes" } },
    });
    assert.equal(annotated.metadata.generation, 2);
    const jp = await patch(t, path, "application/json-patch+json", [
      { op: "add", path: "/endpoints/-", value: { addresses: ["10.1.0.9"] } },
    ]);
    assert.equal(jp.endpoints.length, 5);
    assert.equal(jp.metadata.generation, 3);
    const smp = await patch(t, path, "application/strategic-merge-patch+json", {
      endpoints: [{ addresses: ["10.1.0.7"] }],
    });
    assert.deepEqual(smp.endpoints, [{ addresses: ["10.1.0.7"] }], "endpoints is atomic");
    const applied = await patch(
      t,
      path,
      "application/apply-patch+yaml",
      JSON.stringify({
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: { name: "web-1" },
        addressType: "IPv4",
        endpoints: [{ addresses: ["10.1.0.8"] }],
      }),
      "?fieldManager=tester&force=true",
    );
    assert.deepEqual(applied.endpoints, [{ addresses: ["10.1.0.8"] }]);
    assert.ok(applied.metadata.managedFields.some((m: Json) => m.manager === "tester"));
    const updated = await write(t, "PUT", path, { ...applied, ports: [] });
    assert.deepEqual(updated.ports, []);
    const empty = await (await t.fetch(SLICES, { headers: { accept: TABLE } })).json();
    assert.deepEqual(empty.rows[0].cells.slice(2, 4), ["<unset>", "10.1.0.8"]);
    assert.equal((await w.next())?.type, "MODIFIED");
    const del = await t.fetch(path, { method: "DELETE" });
    assert.equal(del.status, 200);
    await del.body?.cancel();
    let ev = await w.next();
    while (ev && ev.type !== "DELETED") ev = await w.next();
    assert.equal(ev?.type, "DELETED");
    await w.cancel();
    const fqdn = await write(t, "POST", SLICES, {
      ...slice("ext", "FQDN", []),
      endpoints: [{ addresses: ["db.example.com"], deprecatedTopology: { zone: "a" } }],
    });
    assert.equal(fqdn.addressType, "FQDN");
    assert.deepEqual(fqdn.endpoints, [{ addresses: ["db.example.com"] }], "topology is read-only");
    const v6 = await write(t, "POST", SLICES, slice("v6", "IPv6", ["2001:db8::1"]));
    assert.deepEqual(v6.endpoints[0].addresses, ["2001:db8::1"]);
  });
});

Deno.test("EndpointSlices reject invalid objects with Kubernetes' messages", async () => {
  await withServer(async (t) => {
    assert.equal(
      await rejected(t, "POST", SLICES, slice("a", "IPv4", ["2001:db8::1"])),
      'EndpointSlice.discovery.k8s.io "a" is invalid: endpoints[0].addresses[0]: Invalid value: "2001:db8::1": must be a valid IPv4 address',
    );
    assert.equal(
      await rejected(t, "POST", SLICES, slice("b", "IPv6", ["10.0.0.1"])),
      'EndpointSlice.discovery.k8s.io "b" is invalid: endpoints[0].addresses[0]: Invalid value: "10.0.0.1": must be a valid IPv6 address',
    );
    assert.match(
      await rejected(t, "POST", SLICES, slice("c", "IPv4", ["127.0.0.1"])),
      /addresses\[0\]: Invalid value: "127.0.0.1": may not be in the loopback range/,
    );
    assert.match(
      await rejected(t, "POST", SLICES, slice("d", "FQDN", ["nodots"])),
      /Invalid value: "nodots": should be a domain with at least two segments separated by dots/,
    );
    assert.match(
      await rejected(t, "POST", SLICES, slice("e", "IP", ["10.0.0.1"])),
      /addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"/,
    );
    assert.equal(
      await rejected(t, "POST", SLICES, { metadata: { name: "f" }, endpoints: [] }),
      'EndpointSlice.discovery.k8s.io "f" is invalid: addressType: Required value',
    );
    assert.match(
      await rejected(t, "POST", SLICES, slice("g", "IPv4", [], { endpoints: [{ addresses: [] }] })),
      /endpoints\[0\].addresses: Required value: must contain at least 1 address/,
    );
    assert.match(
      await rejected(
        t,
        "POST",
        SLICES,
        slice("h", "IPv4", ["10.0.0.1"], {
          ports: [{ name: "p", port: 1 }, { name: "p", port: 2 }],
        }),
      ),
      /ports\[1\].name: Duplicate value: "p"/,
    );
    const kept = await write(t, "POST", SLICES, slice("keep", "IPv4", ["10.0.0.1"]));
    assert.match(
      await rejected(t, "PUT", `${SLICES}/keep`, {
        ...kept,
        addressType: "FQDN",
        endpoints: [{ addresses: ["a.example.com"] }],
      }),
      /addressType: Invalid value: "FQDN": field is immutable/,
    );
  });
});

Deno.test({
  name: "kubectl applies and lists EndpointSlices",
  ignore: skipWithoutKubectl("the kubectl EndpointSlice tests"),
  async fn() {
    const s = await startTestServer();
    try {
      const k = kubectlFor(s);
      const manifest = `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-xyz
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
endpoints:
- addresses: [10.2.0.1]
  conditions: {ready: true}
ports:
- {name: http, port: 8080}
`;
      assert.match(
        ok(await kubectl(k, ["apply", "-f", "-"], manifest)),
        /endpointslice.discovery.k8s.io\/web-xyz created/,
      );
      const table = ok(
        await kubectl(k, ["get", "endpointslices", "-l", "kubernetes.io/service-name=web"]),
      );
      assert.match(table, /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\n/);
      assert.match(table, /\nweb-xyz\s+IPv4\s+8080\s+10.2.0.1\s+\S+\n/);
      const wide = ok(await kubectl(k, ["get", "endpointslice", "web-xyz", "-o", "wide"]));
      assert.match(wide, /web-xyz\s+IPv4\s+8080\s+10.2.0.1/);
      const got = JSON.parse(
        ok(await kubectl(k, ["get", "endpointslice", "web-xyz", "-o", "json"])),
      );
      assert.deepEqual(got.ports, [{ name: "http", port: 8080, protocol: "TCP" }]);
      const bad = await kubectl(k, ["apply", "-f", "-"], manifest.replace("10.2.0.1", "nope"));
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /must be a valid IPv4 address/);
    } finally {
      await s.close();
    }
  },
});
