/**
 * End-to-end over HTTPS for networking.k8s.io/v1 (Ingress, IngressClass, NetworkPolicy):
 * create (defaults), get in JSON and Protobuf, list as Table, the four patch types, the Ingress
 * status subresource, watch, delete, the default IngressClass, validation errors, and kubectl
 * 1.32 (`create ingress`, `get ingress,netpol,ingressclass,endpointslices`) where it exists.
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
const NET = "/apis/networking.k8s.io/v1";
const ING = `${NET}/namespaces/default/ingresses`;
const NETPOL = `${NET}/namespaces/default/networkpolicies`;
const CLASSES = `${NET}/ingressclasses`;

/** An Ingress routing `host/path` to `svc:port`. */
function ingress(name: string, extra: Json = {}): Json {
  return {
    metadata: { name },
    spec: {
      rules: [{
        host: "foo.com",
        http: {
          paths: [{
            path: "/bar",
            pathType: "Prefix",
            backend: { service: { name: "svc1", port: { number: 8080 } } },
          }],
        },
      }],
      ...extra,
    },
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

async function patch(t: TestServer, path: string, type: string, body: unknown, query = "") {
  const res = await t.fetch(`${path}${query}`, {
    method: "PATCH",
    headers: { "content-type": type },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, 200, `PATCH ${path} (${type}): ${JSON.stringify(json)}`);
  return json;
}

async function rejected(t: TestServer, method: string, path: string, body: Json) {
  const res = await t.fetch(path, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, 422, JSON.stringify(json));
  return json.message as string;
}

interface Case {
  kind: string;
  collection: string;
  body: (name: string) => Json;
  columns: string[];
}

const CASES: Case[] = [
  {
    kind: "Ingress",
    collection: ING,
    body: (name) => ingress(name),
    columns: ["Name", "Class", "Hosts", "Address", "Ports", "Age"],
  },
  {
    kind: "IngressClass",
    collection: CLASSES,
    body: (name) => ({ metadata: { name }, spec: { controller: "example.com/ingress" } }),
    columns: ["Name", "Controller", "Parameters", "Age"],
  },
  {
    kind: "NetworkPolicy",
    collection: NETPOL,
    body: (name) => ({ metadata: { name }, spec: { podSelector: { matchLabels: { app: "a" } } } }),
    columns: ["Name", "Pod-Selector", "Age"],
  },
];

async function checkFormats(t: TestServer, c: Case, name: string): Promise<void> {
  const path = `${c.collection}/${name}`;
  const asJson = await (await t.fetch(path)).json();
  const res = await t.fetch(path, { headers: { accept: PB } });
  assert.equal(res.headers.get("content-type"), PB, c.kind);
  const asPb = decodeObject(new Uint8Array(await res.arrayBuffer()));
  assert.deepEqual(asPb, asJson, c.kind);
  const put = await t.fetch(path, {
    method: "PUT",
    headers: { "content-type": PB, accept: "application/json" },
    body: encodeObject(asPb),
  });
  assert.equal(put.status, 200, `${c.kind}: ${await put.clone().text()}`);
  assert.deepEqual(await put.json(), asJson, c.kind);
  for (const query of ["", "?includeObject=None"]) {
    const table = await (await t.fetch(`${c.collection}${query}`, { headers: { accept: TABLE } }))
      .json();
    assert.equal(table.kind, "Table");
    assert.deepEqual(table.columnDefinitions.map((d: Json) => d.name), c.columns, c.kind);
    assert.equal(table.rows[0].cells.length, c.columns.length, c.kind);
    assert.equal(table.rows[0].cells[0], name);
  }
}

async function checkPatches(t: TestServer, c: Case, name: string): Promise<void> {
  const path = `${c.collection}/${name}`;
  const merged = await patch(t, path, "application/merge-patch+json", {
    metadata: { labels: { merge: "yes" } },
  });
  assert.equal(merged.metadata.labels.merge, "yes");
  const jp = await patch(t, path, "application/json-patch+json", [
    { op: "add", path: "/metadata/annotations", value: { json: "yes" } },
  ]);
  assert.equal(jp.metadata.annotations.json, "yes");
  const smp = await patch(t, path, "application/strategic-merge-patch+json", {
    metadata: { labels: { smp: "yes" } },
  });
  assert.deepEqual([smp.metadata.labels.merge, smp.metadata.labels.smp], ["yes", "yes"]);
  const applied = await patch(
    t,
    path,
    "application/apply-patch+yaml",
    JSON.stringify({
      apiVersion: "networking.k8s.io/v1",
      kind: c.kind,
      metadata: { name, labels: { applied: "yes" } },
    }),
    "?fieldManager=tester",
  );
  assert.equal(applied.metadata.labels.applied, "yes");
  assert.ok(applied.metadata.managedFields.some((m: Json) => m.manager === "tester"));
}

Deno.test("networking.k8s.io/v1 kinds serve every verb in JSON, Protobuf and Table", async () => {
  await withServer(async (t) => {
    for (const c of CASES) {
      const name = c.kind.toLowerCase();
      const w = await watch(t, "watch=true", c.collection);
      const created = await write(t, "POST", c.collection, c.body(name));
      assert.equal(created.metadata.generation, 1, c.kind);
      assert.equal((await w.next())?.type, "ADDED", c.kind);
      await checkFormats(t, c, name);
      await checkPatches(t, c, name);
      assert.equal((await w.next())?.type, "MODIFIED", c.kind);
      const list = await (await t.fetch(c.collection)).json();
      assert.equal(list.kind, `${c.kind}List`);
      assert.deepEqual(list.items.map((i: Json) => i.metadata.name), [name]);
      const del = await t.fetch(`${c.collection}/${name}`, { method: "DELETE" });
      assert.equal(del.status, 200, c.kind);
      await del.body?.cancel();
      let ev = await w.next();
      while (ev && ev.type !== "DELETED") ev = await w.next();
      assert.equal(ev?.type, "DELETED", c.kind);
      await w.cancel();
    }
  });
});

Deno.test("an Ingress has its status subresource, Table cells and a generation", async () => {
  await withServer(async (t) => {
    const created = await write(t, "POST", ING, ingress("web", { tls: [{ hosts: ["foo.com"] }] }));
    assert.deepEqual(created.status, { loadBalancer: {} });
    assert.equal(created.spec.ingressClassName, undefined);
    const viaMain = await patch(t, `${ING}/web`, "application/merge-patch+json", {
      status: { loadBalancer: { ingress: [{ ip: "10.0.0.9" }] } },
    });
    assert.deepEqual(viaMain.status, { loadBalancer: {} });
    const status = { loadBalancer: { ingress: [{ ip: "10.0.0.9" }, { hostname: "lb.example" }] } };
    const viaStatus = await patch(t, `${ING}/web/status`, "application/merge-patch+json", {
      status,
    });
    assert.deepEqual(viaStatus.status, status);
    assert.equal(viaStatus.metadata.generation, 1);
    const specChange = await patch(t, `${ING}/web`, "application/merge-patch+json", {
      spec: { ingressClassName: "other" },
    });
    assert.equal(specChange.metadata.generation, 2);
    const table = await (await t.fetch(ING, { headers: { accept: TABLE } })).json();
    assert.deepEqual(table.rows[0].cells.slice(0, 5), [
      "web",
      "other",
      "foo.com",
      "10.0.0.9,lb.example",
      "80, 443",
    ]);
    const badStatus = await rejected(t, "PUT", `${ING}/web/status`, {
      ...viaStatus,
      metadata: { ...specChange.metadata },
      status: { loadBalancer: { ingress: [{ ip: "nope" }] } },
    });
    assert.match(badStatus, /status.loadBalancer.ingress\[0\].ip: Invalid value: "nope"/);
    const disc = await (await t.fetch(NET)).json();
    const ing = disc.resources.find((r: Json) => r.name === "ingresses");
    assert.deepEqual(ing.shortNames, ["ing"]);
    assert.ok(disc.resources.some((r: Json) => r.name === "ingresses/status"));
    const netpol = disc.resources.find((r: Json) => r.name === "networkpolicies");
    assert.deepEqual(netpol.shortNames, ["netpol"]);
    const classes = disc.resources.find((r: Json) => r.name === "ingressclasses");
    assert.equal(classes.namespaced, false);
  });
});

Deno.test("an Ingress without a class gets the default IngressClass at create", async () => {
  await withServer(async (t) => {
    const annotation = "ingressclass.kubernetes.io/is-default-class";
    await write(t, "POST", CLASSES, {
      metadata: { name: "nginx", annotations: { [annotation]: "true" } },
      spec: { controller: "k8s.io/ingress-nginx" },
    });
    const defaulted = await write(t, "POST", ING, ingress("a"));
    assert.equal(defaulted.spec.ingressClassName, "nginx");
    const chosen = await write(t, "POST", ING, ingress("b", { ingressClassName: "mine" }));
    assert.equal(chosen.spec.ingressClassName, "mine");
    const legacy = ingress("c");
    legacy.metadata.annotations = { "kubernetes.io/ingress.class": "old" };
    assert.equal((await write(t, "POST", ING, legacy)).spec.ingressClassName, undefined);
    // An update never defaults the class.
    const cleared = await patch(t, `${ING}/a`, "application/json-patch+json", [
      { op: "remove", path: "/spec/ingressClassName" },
    ]);
    assert.equal(cleared.spec.ingressClassName, undefined);
    await write(t, "POST", CLASSES, {
      metadata: { name: "second", annotations: { [annotation]: "true" } },
      spec: { controller: "example.com/second" },
    });
    const res = await t.fetch(ING, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ingress("d")),
    });
    const body = await res.json();
    assert.equal(res.status, 403, JSON.stringify(body));
    assert.match(body.message, /2 default IngressClasses were found, only 1 allowed/);
  });
});

Deno.test("NetworkPolicy and IngressClass get Kubernetes' defaults", async () => {
  await withServer(async (t) => {
    const plain = await write(t, "POST", NETPOL, {
      metadata: { name: "plain" },
      spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] },
    });
    assert.deepEqual(plain.spec.policyTypes, ["Ingress"]);
    assert.equal(plain.spec.ingress[0].ports[0].protocol, "TCP");
    const both = await write(t, "POST", NETPOL, {
      metadata: { name: "both" },
      spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: "10.0.0.0/8" } }] }] },
    });
    assert.deepEqual(both.spec.policyTypes, ["Ingress", "Egress"]);
    const table = await (await t.fetch(NETPOL, { headers: { accept: TABLE } })).json();
    assert.deepEqual(table.rows.map((r: Json) => r.cells[1]), ["<none>", "<none>"]);
    const cls = await write(t, "POST", CLASSES, {
      metadata: { name: "with-params" },
      spec: {
        controller: "example.com/c",
        parameters: { apiGroup: "example.com", kind: "Params", name: "p" },
      },
    });
    assert.equal(cls.spec.parameters.scope, "Cluster");
    const classes = await (await t.fetch(CLASSES, { headers: { accept: TABLE } })).json();
    assert.deepEqual(classes.rows[0].cells.slice(0, 3), [
      "with-params",
      "example.com/c",
      "Params.example.com/p",
    ]);
  });
});

Deno.test("networking.k8s.io/v1 kinds reject invalid objects with Kubernetes' messages", async () => {
  await withServer(async (t) => {
    const noPathType = ingress("a");
    delete noPathType.spec.rules[0].http.paths[0].pathType;
    assert.equal(
      await rejected(t, "POST", ING, noPathType),
      'Ingress.networking.k8s.io "a" is invalid: spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
    );
    const badPathType = ingress("b");
    badPathType.spec.rules[0].http.paths[0].pathType = "Regex";
    assert.match(
      await rejected(t, "POST", ING, badPathType),
      /pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"/,
    );
    const both = ingress("c");
    both.spec.rules[0].http.paths[0].backend.resource = { kind: "Bucket", name: "b" };
    assert.match(
      await rejected(t, "POST", ING, both),
      /spec.rules\[0\].http.paths\[0\].backend: Invalid value: "": cannot set both resource and service backends/,
    );
    const noPort = ingress("d");
    noPort.spec.rules[0].http.paths[0].backend.service.port = {};
    assert.match(
      await rejected(t, "POST", ING, noPort),
      /backend: Required value: port name or number is required/,
    );
    assert.match(
      await rejected(t, "POST", ING, { metadata: { name: "e" }, spec: {} }),
      /spec: Invalid value: .*either `defaultBackend` or `rules` must be specified/,
    );
    const ipHost = ingress("f");
    ipHost.spec.rules[0].host = "10.1.2.3";
    assert.match(await rejected(t, "POST", ING, ipHost), /must be a DNS name, not an IP address/);
    const relative = ingress("g");
    relative.spec.rules[0].http.paths[0].path = "bar";
    assert.match(
      await rejected(t, "POST", ING, relative),
      /path: Invalid value: "bar": must be an absolute path/,
    );
    assert.match(
      await rejected(t, "POST", CLASSES, {
        metadata: { name: "x" },
        spec: { controller: "plain" },
      }),
      /spec.controller: Invalid value: "plain": must be a domain-prefixed path/,
    );
    await write(t, "POST", CLASSES, { metadata: { name: "y" }, spec: { controller: "a.io/b" } });
    assert.match(
      await rejected(t, "PUT", `${CLASSES}/y`, {
        metadata: { name: "y" },
        spec: { controller: "a.io/c" },
      }),
      /spec.controller: Invalid value: "a.io\/c": field is immutable/,
    );
    assert.match(
      await rejected(t, "POST", NETPOL, {
        metadata: { name: "p" },
        spec: {
          podSelector: {},
          ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["11.0.0.0/16"] } }] }],
          policyTypes: ["Sideways"],
        },
      }),
      /spec.ingress\[0\].from\[0\].ipBlock.except\[0\]: Invalid value: "11.0.0.0\/16": must be a strict subset of `cidr`.*spec.policyTypes\[0\]: Unsupported value: "Sideways"/,
    );
    assert.match(
      await rejected(t, "POST", NETPOL, {
        metadata: { name: "q" },
        spec: { podSelector: {}, egress: [{ ports: [{ port: "http", endPort: 90 }], to: [{}] }] },
      }),
      /endPort: Invalid value: 90: may not be specified when `port` is non-numeric.*to\[0\]: Required value: must specify a peer/,
    );
  });
});

Deno.test({
  name: "kubectl create ingress and get ingress,netpol,ingressclass,endpointslices work",
  ignore: skipWithoutKubectl("the kubectl networking tests"),
  async fn() {
    const s = await startTestServer();
    try {
      const k = kubectlFor(s);
      assert.match(
        ok(await kubectl(k, ["create", "ingress", "web", "--rule=foo.com/bar=svc1:8080"])),
        /ingress.networking.k8s.io\/web created/,
      );
      const got = JSON.parse(ok(await kubectl(k, ["get", "ing", "web", "-o", "json"])));
      assert.deepEqual(got.spec.rules[0].http.paths[0], {
        path: "/bar",
        pathType: "Exact",
        backend: { service: { name: "svc1", port: { number: 8080 } } },
      });
      ok(await kubectl(k, ["apply", "-f", "-"], NETPOL_YAML));
      ok(await kubectl(k, ["apply", "--server-side", "-f", "-"], CLASS_YAML));
      ok(await kubectl(k, ["apply", "-f", "-"], SLICE_YAML));
      const all = ok(await kubectl(k, ["get", "ingress,netpol,ingressclass,endpointslices"]));
      assert.match(all, /NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\n/);
      assert.match(all, /ingress.networking.k8s.io\/web\s+<none>\s+foo.com\s+80\s+\S+/);
      assert.match(all, /NAME\s+POD-SELECTOR\s+AGE\n/);
      assert.match(all, /networkpolicy.networking.k8s.io\/deny\s+app=web\s+\S+/);
      assert.match(all, /NAME\s+CONTROLLER\s+PARAMETERS\s+AGE\n/);
      assert.match(all, /ingressclass.networking.k8s.io\/nginx\s+k8s.io\/ingress-nginx\s+<none>/);
      assert.match(all, /NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\n/);
      assert.match(
        all,
        /endpointslice.discovery.k8s.io\/web-abc\s+IPv4\s+80\s+10.1.0.1,10.1.0.2\s+\S+/,
      );
      const wide = ok(await kubectl(k, ["get", "ing", "-o", "wide"]));
      assert.match(wide, /^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\n/);
      ok(await kubectl(k, ["create", "ingress", "second", "--rule=bar.com/=svc2:http"]));
      const second = JSON.parse(ok(await kubectl(k, ["get", "ing", "second", "-o", "json"])));
      assert.equal(second.spec.ingressClassName, "nginx");
      const netpol = JSON.parse(ok(await kubectl(k, ["get", "netpol", "deny", "-o", "json"])));
      assert.deepEqual(netpol.spec.policyTypes, ["Ingress"]);
      const explained = ok(await kubectl(k, ["explain", "ingress.spec.rules.http.paths"]));
      assert.match(explained, /GROUP:\s+networking.k8s.io\s+KIND:\s+Ingress/);
      assert.match(explained, /pathType\s+<string>/);
      const described = ok(await kubectl(k, ["describe", "ingress", "web"]));
      assert.match(described, /foo.com\s+\n?\s*\/bar\s+svc1:8080/);
      assert.match(ok(await kubectl(k, ["describe", "netpol", "deny"])), /PodSelector:\s+app=web/);
      assert.match(
        ok(await kubectl(k, ["describe", "ingressclass", "nginx"])),
        /Controller:\s+k8s.io\/ingress-nginx/,
      );
      assert.match(
        ok(await kubectl(k, ["describe", "endpointslice", "web-abc"])),
        /AddressType:\s+IPv4/,
      );
      assert.match(
        ok(await kubectl(k, ["delete", "ingress", "web"])),
        /ingress.networking.k8s.io "web" deleted/,
      );
    } finally {
      await s.close();
    }
  },
});

const NETPOL_YAML = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: deny
spec:
  podSelector:
    matchLabels: {app: web}
`;

const CLASS_YAML = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  annotations:
    ingressclass.kubernetes.io/is-default-class: "true"
spec:
  controller: k8s.io/ingress-nginx
`;

const SLICE_YAML = `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-abc
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
endpoints:
- addresses: [10.1.0.1]
- addresses: [10.1.0.2]
ports:
- port: 80
`;
