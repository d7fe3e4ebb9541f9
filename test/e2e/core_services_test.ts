/**
 * End-to-end: Services and Endpoints over HTTPS: defaults, Table columns, every write verb,
 * watch, Protobuf, validation messages, services/proxy, and the allocators (no duplicate
 * ClusterIPs under concurrent creates, release on delete, nothing allocated by a dry run).
 */
import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import type { KubeList, KubeObject, Status } from "../../shared/api/meta/v1/types.ts";
import {
  CLUSTER_IP_PREFIX,
  NODE_PORT_PREFIX,
} from "../../apiserver/registry/core/services/allocator.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { assertOk, assertStatus, call } from "./foundation_helpers.ts";
import { eventually } from "../support/eventually.ts";

const SVC = "/api/v1/namespaces/default/services";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const PB = "application/vnd.kubernetes.protobuf";

async function withServer(fn: (t: TestServer) => Promise<void>): Promise<void> {
  const t = await startTestServer();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

function svc(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: "v1", kind: "Service", metadata: { name }, spec };
}

type Spec = Record<string, unknown> & { ports: Record<string, unknown>[] };

function specOf(o: KubeObject): Spec {
  return o.spec as Spec;
}

/** The values claimed under `prefix`, but the `kubernetes` Service's address. */
async function claimed(t: TestServer, prefix: string): Promise<string[]> {
  return (await t.server.storage.list(prefix)).items.map((kv) => kv.key.slice(prefix.length))
    .filter((v) => v !== "10.96.0.1");
}

Deno.test("Service create sets kube-apiserver's defaults and allocates a ClusterIP", async () => {
  await withServer(async (t) => {
    const s = assertOk(
      await call(t, "POST", SVC, svc("web", { selector: { app: "web" }, ports: [{ port: 80 }] })),
      201,
    );
    const spec = specOf(s);
    assert.equal(spec.type, "ClusterIP");
    assert.equal(spec.sessionAffinity, "None");
    assert.equal(spec.internalTrafficPolicy, "Cluster");
    assert.equal(spec.ipFamilyPolicy, "SingleStack");
    assert.deepEqual(spec.ipFamilies, ["IPv4"]);
    assert.deepEqual(spec.ports, [{ port: 80, protocol: "TCP", targetPort: 80 }]);
    assert.match(String(spec.clusterIP), /^10\.(9[6-9]|10[0-9]|11[01])\./);
    assert.deepEqual(spec.clusterIPs, [spec.clusterIP]);
    assert.equal(spec.externalTrafficPolicy, undefined);
    assert.deepEqual(s.status, { loadBalancer: {} });
    assert.deepEqual(await claimed(t, CLUSTER_IP_PREFIX), [spec.clusterIP]);

    const np = assertOk(
      await call(
        t,
        "POST",
        SVC,
        svc("np", { type: "NodePort", ports: [{ port: 80, targetPort: "http" }] }),
      ),
      201,
    );
    const p = specOf(np).ports[0];
    assert.ok(Number(p.nodePort) >= 30000 && Number(p.nodePort) <= 32767, String(p.nodePort));
    assert.equal(p.targetPort, "http");
    assert.equal(specOf(np).externalTrafficPolicy, "Cluster");
    assert.deepEqual(await claimed(t, NODE_PORT_PREFIX), [String(p.nodePort)]);

    const ext = assertOk(
      await call(t, "POST", SVC, svc("ext", { type: "ExternalName", externalName: "example.com" })),
      201,
    );
    assert.equal(specOf(ext).clusterIP, undefined);
    assert.equal(specOf(ext).ipFamilies, undefined);
  });
});

Deno.test("Service Table has kubectl's columns, Selector at priority 1", async () => {
  await withServer(async (t) => {
    assertOk(
      await call(
        t,
        "POST",
        SVC,
        svc("a", {
          type: "NodePort",
          selector: { b: "2", a: "1" },
          ports: [{ name: "x", port: 80, nodePort: 30080 }, {
            name: "y",
            port: 53,
            protocol: "UDP",
          }],
        }),
      ),
      201,
    );
    assertOk(
      await call(
        t,
        "POST",
        SVC,
        svc("b", { type: "ExternalName", externalName: "db.example.com" }),
      ),
      201,
    );
    assertOk(
      await call(t, "POST", SVC, svc("c", { type: "LoadBalancer", ports: [{ port: 443 }] })),
      201,
    );
    const r = await call<
      { columnDefinitions: { name: string; priority: number }[]; rows: { cells: unknown[] }[] }
    >(t, "GET", SVC, undefined, { accept: TABLE });
    const table = assertOk(r, 200);
    assert.deepEqual(table.columnDefinitions.map((c) => [c.name, c.priority]), [
      ["Name", 0],
      ["Type", 0],
      ["Cluster-IP", 0],
      ["External-IP", 0],
      ["Port(s)", 0],
      ["Age", 0],
      ["Selector", 1],
    ]);
    const [a, b, c] = table.rows.map((row) => row.cells).filter((c) => c[0] !== "kubernetes");
    assert.equal(a[1], "NodePort");
    assert.match(String(a[4]), /^80:30080\/TCP,53:3\d{4}\/UDP$/);
    assert.equal(a[3], "<none>");
    assert.equal(a[6], "a=1,b=2");
    assert.deepEqual([b[1], b[2], b[3], b[4], b[6]], [
      "ExternalName",
      "<none>",
      "db.example.com",
      "<none>",
      "<none>",
    ]);
    assert.equal(c[3], "<pending>");
  });
});

Deno.test("Service update, the four patches and delete keep and release allocations", async () => {
  await withServer(async (t) => {
    const s = assertOk(
      await call(t, "POST", SVC, svc("web", { type: "NodePort", ports: [{ port: 80 }] })),
      201,
    );
    const ip = specOf(s).clusterIP, nodePort = specOf(s).ports[0].nodePort;
    // A PUT that leaves out the allocated values keeps them.
    const put = assertOk(
      await call(
        t,
        "PUT",
        `${SVC}/web`,
        svc("web", { type: "NodePort", ports: [{ port: 80 }], selector: { app: "w" } }),
      ),
      200,
    );
    assert.equal(specOf(put).clusterIP, ip);
    assert.equal(specOf(put).ports[0].nodePort, nodePort);
    const patches: [string, unknown][] = [
      ["application/merge-patch+json", { metadata: { labels: { a: "1" } } }],
      ["application/json-patch+json", [{ op: "add", path: "/metadata/labels/b", value: "2" }]],
      ["application/strategic-merge-patch+json", {
        spec: { ports: [{ port: 81, name: "alt" }, { port: 80, name: "main" }] },
      }],
    ];
    for (const [type, body] of patches) {
      assertOk(
        await call(t, "PATCH", `${SVC}/web`, JSON.stringify(body), { "content-type": type }),
        200,
      );
    }
    const got = assertOk(await call(t, "GET", `${SVC}/web`), 200);
    assert.deepEqual(got.metadata.labels, { a: "1", b: "2" });
    const ports = specOf(got).ports;
    assert.deepEqual(ports.map((p) => p.port).sort(), [80, 81]);
    assert.equal(ports.find((p) => p.port === 80)?.nodePort, nodePort);
    assert.equal((await claimed(t, NODE_PORT_PREFIX)).length, 2);
    const applied = assertOk(
      await call(
        t,
        "PATCH",
        `${SVC}/applied?fieldManager=test`,
        JSON.stringify(svc("applied", { ports: [{ port: 8080 }] })),
        { "content-type": "application/apply-patch+yaml" },
      ),
      201,
    );
    assert.ok(specOf(applied).clusterIP);
    // Changing the type to ClusterIP drops the NodePorts and the external traffic policy (as
    // kube's dropTypeDependentFields) and releases the ports; the ClusterIP stays.
    const back = assertOk(
      await call(
        t,
        "PATCH",
        `${SVC}/web`,
        JSON.stringify({ spec: { type: "ClusterIP" } }),
        { "content-type": "application/merge-patch+json" },
      ),
      200,
    );
    assert.equal(specOf(back).clusterIP, ip);
    assert.equal(specOf(back).externalTrafficPolicy, undefined);
    assert.ok(specOf(back).ports.every((p) => p.nodePort === undefined));
    assert.deepEqual(await claimed(t, NODE_PORT_PREFIX), []);
    // A type the new value still fits keeps what it holds; ExternalName drops the ClusterIP.
    const ext = assertOk(
      await call(
        t,
        "PATCH",
        `${SVC}/web`,
        JSON.stringify({ spec: { type: "ExternalName", externalName: "db.example.com" } }),
        { "content-type": "application/merge-patch+json" },
      ),
      200,
    );
    assert.equal(specOf(ext).clusterIP, undefined);
    assert.ok(!(await claimed(t, CLUSTER_IP_PREFIX)).includes(String(ip)));
    const toIP = assertOk(
      await call(
        t,
        "PATCH",
        `${SVC}/web`,
        JSON.stringify({ spec: { type: "ClusterIP", externalName: null } }),
        { "content-type": "application/merge-patch+json" },
      ),
      200,
    );
    assert.ok(specOf(toIP).clusterIP);
    // DELETE answers the Service, as kube-apiserver does, and releases its ClusterIP.
    const del = assertOk(await call(t, "DELETE", `${SVC}/web`), 200);
    assert.equal(del.kind, "Service");
    assert.equal(specOf(del).clusterIP, specOf(toIP).clusterIP);
    assert.deepEqual(await claimed(t, CLUSTER_IP_PREFIX), [specOf(applied).clusterIP]);
    // The released address can be asked for again.
    const again = assertOk(
      await call(t, "POST", SVC, svc("again", { clusterIP: ip, ports: [{ port: 1 }] })),
      201,
    );
    assert.equal(specOf(again).clusterIP, ip);
  });
});

Deno.test("Service allocation: concurrent creates never share a ClusterIP or NodePort", async () => {
  await withServer(async (t) => {
    const n = 40;
    const made = await Promise.all(
      Array.from(
        { length: n },
        (_, i) => call(t, "POST", SVC, svc(`s${i}`, { type: "NodePort", ports: [{ port: 80 }] })),
      ),
    );
    const objs = made.map((r) => assertOk(r, 201));
    assert.equal(new Set(objs.map((o) => specOf(o).clusterIP)).size, n);
    assert.equal(new Set(objs.map((o) => specOf(o).ports[0].nodePort)).size, n);
    // Asking for one address at once: exactly one wins, the others are told it is taken.
    const same = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call<Status>(
          t,
          "POST",
          SVC,
          svc(`x${i}`, { clusterIP: "10.96.0.50", ports: [{ port: 80 }] }),
        )),
    );
    assert.equal(same.filter((r) => r.status === 201).length, 1);
    for (const r of same.filter((r) => r.status !== 201)) {
      assertStatus(r, 422, "Invalid");
      assert.match(
        r.body.message ?? "",
        /spec\.clusterIPs: Invalid value: \["10\.96\.0\.50"\]: failed to allocate IP 10\.96\.0\.50: provided IP is already allocated/,
      );
    }
    assert.equal((await claimed(t, CLUSTER_IP_PREFIX)).length, n + 1);
  });
});

Deno.test("Service dry run allocates nothing; bad ranges and taken ports are 422", async () => {
  await withServer(async (t) => {
    const dry = assertOk(
      await call(
        t,
        "POST",
        `${SVC}?dryRun=All`,
        svc("d", { type: "NodePort", ports: [{ port: 80 }] }),
      ),
      201,
    );
    assert.ok(specOf(dry).clusterIP);
    assert.deepEqual(await claimed(t, CLUSTER_IP_PREFIX), []);
    assert.deepEqual(await claimed(t, NODE_PORT_PREFIX), []);
    assertStatus(await call(t, "GET", `${SVC}/d`), 404);
    const out = await call<Status>(
      t,
      "POST",
      SVC,
      svc("o", { clusterIP: "10.0.0.1", ports: [{ port: 80 }] }),
    );
    assertStatus(out, 422);
    assert.match(
      out.body.message ?? "",
      /provided IP \(10\.0\.0\.1\) is not in the valid range\. The range of valid IPs is 10\.96\.0\.0\/12/,
    );
    const port = await call<Status>(
      t,
      "POST",
      SVC,
      svc("p", { type: "NodePort", ports: [{ port: 80, nodePort: 80 }] }),
    );
    assert.match(
      port.body.message ?? "",
      /spec\.ports\[0\]\.nodePort: Invalid value: 80: provided port is not in the valid range\. The range of valid ports is 30000-32767/,
    );
    assertOk(
      await call(
        t,
        "POST",
        SVC,
        svc("q", { type: "NodePort", ports: [{ port: 80, nodePort: 30500 }] }),
      ),
      201,
    );
    const taken = await call<Status>(
      t,
      "POST",
      SVC,
      svc("r", { type: "NodePort", ports: [{ port: 80, nodePort: 30500 }] }),
    );
    assert.match(
      taken.body.message ?? "",
      /spec\.ports\[0\]\.nodePort: Invalid value: 30500: provided port is already allocated/,
    );
    assert.deepEqual(await claimed(t, NODE_PORT_PREFIX), ["30500"]);
    assert.equal((await claimed(t, CLUSTER_IP_PREFIX)).length, 1);
  });
});

Deno.test("Service validation answers kube-apiserver's messages", async () => {
  await withServer(async (t) => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /spec\.ports: Required value/],
      [
        { ports: [{ port: 0 }] },
        /spec\.ports\[0\]\.port: Invalid value: 0: must be between 1 and 65535, inclusive/,
      ],
      [{ ports: [{ port: 80 }, { port: 81 }] }, /spec\.ports\[0\]\.name: Required value/],
      [
        { ports: [{ port: 80, name: "a" }, { port: 81, name: "a" }] },
        /spec\.ports\[1\]\.name: Duplicate value: "a"/,
      ],
      [
        { ports: [{ port: 80, name: "A_b" }] },
        /spec\.ports\[0\]\.name: Invalid value: "A_b": a lowercase RFC 1123 label/,
      ],
      [
        { ports: [{ port: 80, protocol: "ICMP" }] },
        /spec\.ports\[0\]\.protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"/,
      ],
      [{ type: "Foo", ports: [{ port: 80 }] }, /spec\.type: Unsupported value: "Foo"/],
      [{ type: "ExternalName" }, /spec\.externalName: Required value/],
      [
        { ports: [{ port: 80, nodePort: 30001 }] },
        /spec\.ports\[0\]\.nodePort: Forbidden: may not be used when `type` is 'ClusterIP'/,
      ],
      [
        { clusterIP: "bad", ports: [{ port: 80 }] },
        /spec\.clusterIPs\[0\]: Invalid value: "bad": must be a valid IP address/,
      ],
      [
        { externalTrafficPolicy: "Local", ports: [{ port: 80 }] },
        /spec\.externalTrafficPolicy: Invalid value: "Local": may only be set when `type` is 'NodePort' or 'LoadBalancer'/,
      ],
    ];
    cases.push(
      [
        { sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } }, ports: [{ port: 80 }] },
        /spec\.sessionAffinityConfig: Forbidden: must not be set when `sessionAffinity` is None/,
      ],
      [
        { externalIPs: ["nope"], ports: [{ port: 80 }] },
        /spec\.externalIPs\[0\]: Invalid value: "nope": must be a valid IP address/,
      ],
      [
        { loadBalancerSourceRanges: ["10.0.0.0/8"], ports: [{ port: 80 }] },
        /spec\.loadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'/,
      ],
    );
    for (const [spec, message] of cases) {
      const r = await call<Status>(t, "POST", SVC, svc("bad", spec));
      assertStatus(r, 422, "Invalid");
      assert.match(r.body.message ?? "", message, JSON.stringify(spec));
    }
    assert.deepEqual(await claimed(t, CLUSTER_IP_PREFIX), []);
    const s = assertOk(await call(t, "POST", SVC, svc("web", { ports: [{ port: 80 }] })), 201);
    const moved = await call<Status>(t, "PUT", `${SVC}/web`, {
      ...s,
      spec: { ...specOf(s), clusterIP: "10.96.0.9", clusterIPs: ["10.96.0.9"] },
    });
    assertStatus(moved, 422);
    assert.match(
      moved.body.message ?? "",
      /spec\.clusterIPs\[0\]: Invalid value: "10\.96\.0\.9": may not change once set/,
    );
  });
});

Deno.test("Service watch, Protobuf round trip, status and proxy", async () => {
  await withServer(async (t) => {
    const ac = new AbortController();
    const watch = await t.fetch(`${SVC}?watch=1&fieldSelector=metadata.name%3Dw`, {
      signal: ac.signal,
    });
    const created = assertOk(await call(t, "POST", SVC, svc("w", { ports: [{ port: 80 }] })), 201);
    const reader = watch.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n")) text += (await reader.read()).value ?? "";
    const ev = JSON.parse(text.split("\n")[0]);
    assert.equal(ev.type, "ADDED");
    assert.equal(ev.object.spec.clusterIP, specOf(created).clusterIP);
    ac.abort();
    await reader.cancel().catch(() => {});

    const pb = await t.fetch(`${SVC}/w`, { headers: { accept: PB } });
    assert.equal(pb.status, 200);
    const decoded = decodeObject(new Uint8Array(await pb.arrayBuffer())) as KubeObject;
    assert.deepEqual(decoded.spec, created.spec);
    const body = { ...decoded, metadata: { name: "w2" } } as KubeObject;
    delete (body.spec as Spec).clusterIP;
    delete (body.spec as Spec).clusterIPs;
    const res = await t.fetch(SVC, {
      method: "POST",
      body: encodeObject(body),
      headers: { "content-type": PB, accept: PB },
    });
    assert.equal(res.status, 201);
    const w2 = decodeObject(new Uint8Array(await res.arrayBuffer())) as KubeObject;
    assert.notEqual(specOf(w2).clusterIP, specOf(created).clusterIP);
    const list = assertOk(await call<KubeList>(t, "GET", SVC), 200);
    assert.equal(list.kind, "ServiceList");

    const st = assertOk(
      await call(t, "PUT", `${SVC}/w/status`, {
        ...created,
        status: { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } },
      }),
      200,
    );
    assert.deepEqual(st.status, { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } });
    assert.equal(specOf(st).clusterIP, specOf(created).clusterIP);

    for (const path of [`${SVC}/w/proxy`, `${SVC}/w/proxy/some/path`, `${SVC}/w:80/proxy/`]) {
      const r = await call<Status>(t, "GET", path);
      assertStatus(r, 503, "ServiceUnavailable");
      assert.match(r.body.message ?? "", /services\/proxy is not available/);
    }
  });
});

Deno.test("Endpoints: defaults, kubectl's Endpoints column and validation", async () => {
  await withServer(async (t) => {
    const EP = "/api/v1/namespaces/default/endpoints";
    const ep = assertOk(
      await call(t, "POST", EP, {
        metadata: { name: "web" },
        subsets: [{
          addresses: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }],
          ports: [{ name: "a", port: 80 }, { name: "b", port: 443 }],
        }],
      }),
      201,
    );
    assert.equal((ep.subsets as { ports: { protocol: string }[] }[])[0].ports[0].protocol, "TCP");
    const table = assertOk(
      await call<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>(
        t,
        "GET",
        EP,
        undefined,
        { accept: TABLE },
      ),
      200,
    );
    assert.deepEqual(table.columnDefinitions.map((c) => c.name), ["Name", "Endpoints", "Age"]);
    const row = table.rows.find((r) => r.cells[0] === "web");
    assert.equal(row?.cells[1], "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...");
    const bad = await call<Status>(t, "POST", EP, {
      metadata: { name: "bad" },
      subsets: [{ addresses: [{ ip: "x" }], ports: [{ port: 70000 }] }],
    });
    assertStatus(bad, 422);
    assert.match(bad.body.message ?? "", /subsets\[0\]\.addresses\[0\]\.ip: Invalid value: "x"/);
    assert.match(bad.body.message ?? "", /subsets\[0\]\.ports\[0\]\.port: Invalid value: 70000/);
    const pb = await t.fetch(`${EP}/web`, { headers: { accept: PB } });
    assert.deepEqual(
      (decodeObject(new Uint8Array(await pb.arrayBuffer())) as KubeObject).subsets,
      ep.subsets,
    );
  });
});

Deno.test("the server keeps the kubernetes Service at the range's first address, with its Endpoints", async () => {
  await withServer(async (t) => {
    const s = assertOk(await call(t, "GET", `${SVC}/kubernetes`), 200);
    assert.equal(specOf(s).clusterIP, "10.96.0.1");
    assert.deepEqual(specOf(s).ports, [{
      name: "https",
      port: 443,
      protocol: "TCP",
      targetPort: t.server.port,
    }]);
    assert.deepEqual(s.metadata.labels, { component: "apiserver", provider: "kubernetes" });
    const ep = assertOk(
      await call(t, "GET", "/api/v1/namespaces/default/endpoints/kubernetes"),
      200,
    );
    assert.deepEqual(ep.subsets, [{
      addresses: [{ ip: "127.0.0.1" }],
      ports: [{ name: "https", port: t.server.port, protocol: "TCP" }],
    }]);
    // Nobody else gets that address.
    const taken = await call<Status>(
      t,
      "POST",
      SVC,
      svc("x", { clusterIP: "10.96.0.1", ports: [{ port: 80 }] }),
    );
    assertStatus(taken, 422);
  });
});

Deno.test("deleting a namespace deletes its Services and releases their allocations", async () => {
  await withServer(async (t) => {
    assertOk(await call(t, "POST", "/api/v1/namespaces", { metadata: { name: "doomed" } }), 201);
    const path = "/api/v1/namespaces/doomed/services";
    assertOk(
      await call(t, "POST", path, svc("a", { type: "NodePort", ports: [{ port: 80 }] })),
      201,
    );
    assert.equal((await claimed(t, NODE_PORT_PREFIX)).length, 1);
    assertOk(await call(t, "DELETE", "/api/v1/namespaces/doomed"), 200);
    await eventually(
      "the allocations are released",
      async () =>
        (await claimed(t, NODE_PORT_PREFIX)).length === 0 &&
        (await claimed(t, CLUSTER_IP_PREFIX)).length === 0,
    );
  });
});
