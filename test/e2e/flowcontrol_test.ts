/**
 * End-to-end over HTTPS for flowcontrol.apiserver.k8s.io/v1: the mandatory and suggested API
 * Priority and Fairness configuration ensured at start (and again at a restart), FlowSchema and
 * PriorityLevelConfiguration with Kubernetes' defaults, every verb, Protobuf, Table, watch and
 * validation errors.
 */
import assert from "node:assert/strict";
import { decodeObject, encodeObject } from "../../shared/codec/protobuf/mod.ts";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { eventually } from "../support/eventually.ts";
import { startTestServer, type TestServer } from "../support/test_server.ts";
import { type Json, watch, write } from "./_watch_helpers.ts";

const GV = "/apis/flowcontrol.apiserver.k8s.io/v1";
const FS = `${GV}/flowschemas`;
const PLC = `${GV}/prioritylevelconfigurations`;
const PB = "application/vnd.kubernetes.protobuf";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const AUTOUPDATE = "apf.kubernetes.io/autoupdate-spec";

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

async function get(t: TestServer, path: string): Promise<Json> {
  return await (await t.fetch(path)).json();
}

function flowSchema(name: string, spec: Json = {}): Json {
  return {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1",
    kind: "FlowSchema",
    metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: "workload-low" },
      rules: [{
        subjects: [{ kind: "User", user: { name: "alice" } }],
        resourceRules: [{
          verbs: ["get", "list"],
          apiGroups: [""],
          resources: ["pods"],
          namespaces: ["default"],
        }],
      }],
      ...spec,
    },
  };
}

function priorityLevel(name: string, limited: Json = {}): Json {
  return {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1",
    kind: "PriorityLevelConfiguration",
    metadata: { name },
    spec: {
      type: "Limited",
      limited: { limitResponse: { type: "Queue", queuing: {} }, ...limited },
    },
  };
}

const MANDATORY_PL = ["catch-all", "exempt"];
const SUGGESTED_PL = [
  "global-default",
  "leader-election",
  "node-high",
  "system",
  "workload-high",
  "workload-low",
];
const FLOW_SCHEMAS_BY_PRECEDENCE = [
  "exempt",
  "probes",
  "system-leader-election",
  "endpoint-controller",
  "workload-leader-election",
  "system-node-high",
  "system-nodes",
  "kube-controller-manager",
  "kube-scheduler",
  "kube-system-service-accounts",
  "service-accounts",
  "global-default",
  "catch-all",
];

Deno.test("the APF configuration objects exist after start, as Kubernetes ensures them", async () => {
  await withServer(async (t) => {
    const pls = await get(t, PLC);
    assert.deepEqual(
      pls.items.map((i: Json) => i.metadata.name),
      [...MANDATORY_PL, ...SUGGESTED_PL].sort(),
    );
    for (const i of pls.items) assert.equal(i.metadata.annotations[AUTOUPDATE], "true");
    const byName = Object.fromEntries(pls.items.map((i: Json) => [i.metadata.name, i]));
    assert.deepEqual(byName["exempt"].spec, {
      type: "Exempt",
      exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 },
    });
    assert.deepEqual(byName["catch-all"].spec, {
      type: "Limited",
      limited: {
        nominalConcurrencyShares: 5,
        limitResponse: { type: "Reject" },
        lendablePercent: 0,
      },
    });
    assert.deepEqual(byName["workload-low"].spec.limited, {
      nominalConcurrencyShares: 100,
      limitResponse: { type: "Queue", queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
      lendablePercent: 90,
    });

    const table = await (await t.fetch(FS, { headers: { accept: TABLE } })).json();
    assert.deepEqual(table.columnDefinitions.map((c: Json) => c.name), [
      "Name",
      "PriorityLevel",
      "MatchingPrecedence",
      "DistinguisherMethod",
      "Age",
      "MissingPL",
    ]);
    assert.deepEqual(table.rows.map((r: Json) => r.cells[0]), FLOW_SCHEMAS_BY_PRECEDENCE);
    await eventually("every bootstrap FlowSchema has Dangling=False", async () => {
      const t2 = await (await t.fetch(FS, { headers: { accept: TABLE } })).json();
      return t2.rows.every((r: Json) => r.cells[5] === "False");
    });
    const probes = table.rows[1].cells;
    assert.deepEqual([probes[1], probes[2], probes[3]], ["exempt", 2, "<none>"]);
    const exempt = await get(t, `${FS}/exempt`);
    assert.deepEqual(exempt.spec, {
      priorityLevelConfiguration: { name: "exempt" },
      matchingPrecedence: 1,
      rules: [{
        subjects: [{ kind: "Group", group: { name: "system:masters" } }],
        resourceRules: [{
          verbs: ["*"],
          apiGroups: ["*"],
          resources: ["*"],
          clusterScope: true,
          namespaces: ["*"],
        }],
        nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      }],
    });

    const plTable = await (await t.fetch(PLC, { headers: { accept: TABLE } })).json();
    assert.deepEqual(plTable.columnDefinitions.map((c: Json) => c.name), [
      "Name",
      "Type",
      "NominalConcurrencyShares",
      "Queues",
      "HandSize",
      "QueueLengthLimit",
      "Age",
    ]);
    const rows = Object.fromEntries(plTable.rows.map((r: Json) => [r.cells[0], r.cells]));
    assert.deepEqual(rows["exempt"].slice(1, 6), [
      "Exempt",
      "<none>",
      "<none>",
      "<none>",
      "<none>",
    ]);
    assert.deepEqual(rows["leader-election"].slice(1, 6), ["Limited", 10, 16, 4, 50]);
  });
});

Deno.test("a restart puts auto-updated specs back, keeps opted-out ones, removes stale ones", async () => {
  const dir = await Deno.makeTempDir({ prefix: "apf-restart-" });
  const first = await startTestServer([], { dir, keepDir: true });
  try {
    const merge = "application/merge-patch+json";
    const edit = { spec: { matchingPrecedence: 9500 } };
    assert.equal((await send(first, "PATCH", `${FS}/service-accounts`, edit, merge)).status, 200);
    const optOut = { metadata: { annotations: { [AUTOUPDATE]: "false" } }, ...edit };
    assert.equal((await send(first, "PATCH", `${FS}/global-default`, optOut, merge)).status, 200);
    await write(first, "POST", FS, {
      ...flowSchema("stale"),
      metadata: { name: "stale", annotations: { [AUTOUPDATE]: "true" } },
    });
    await write(first, "POST", FS, flowSchema("mine"));
    const exemptPl = { spec: { exempt: { nominalConcurrencyShares: 7 } } };
    assert.equal((await send(first, "PATCH", `${PLC}/exempt`, exemptPl, merge)).status, 200);
  } finally {
    await first.close();
  }
  const second = await startTestServer([], { dir });
  try {
    assert.equal((await get(second, `${FS}/service-accounts`)).spec.matchingPrecedence, 9000);
    const kept = await get(second, `${FS}/global-default`);
    assert.equal(kept.spec.matchingPrecedence, 9500);
    assert.equal(kept.metadata.annotations[AUTOUPDATE], "false");
    assert.equal((await second.fetch(`${FS}/stale`)).status, 404);
    const mine = await get(second, `${FS}/mine`);
    assert.equal(mine.metadata.name, "mine");
    const exempt = await get(second, `${PLC}/exempt`);
    assert.equal(exempt.spec.exempt.nominalConcurrencyShares, 7);
  } finally {
    await second.close();
  }
});

Deno.test("FlowSchema and PriorityLevelConfiguration serve every verb with kube's defaults", async () => {
  await withServer(async (t) => {
    const wp = await watch(t, "watch=true", PLC);
    const pl = await write(t, "POST", PLC, priorityLevel("team"));
    assert.deepEqual(pl.spec.limited, {
      nominalConcurrencyShares: 30,
      limitResponse: { type: "Queue", queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
      lendablePercent: 0,
    });
    assert.deepEqual(pl.status, {});
    const zero = await write(
      t,
      "POST",
      PLC,
      priorityLevel("jail", { nominalConcurrencyShares: 0 }),
    );
    assert.equal(zero.spec.limited.nominalConcurrencyShares, 0);
    let ev = await wp.next();
    while (ev && ev.object.metadata.name !== "team") ev = await wp.next();
    assert.equal(ev?.type, "ADDED");

    const wf = await watch(t, "watch=true", FS);
    const fs = await write(
      t,
      "POST",
      FS,
      flowSchema("team", {
        priorityLevelConfiguration: { name: "team" },
        distinguisherMethod: { type: "ByNamespace" },
      }),
    );
    assert.equal(fs.spec.matchingPrecedence, 1000);
    assert.equal(fs.metadata.generation, 1);
    ev = await wf.next();
    while (ev && ev.object.metadata.name !== "team") ev = await wf.next();
    assert.equal(ev?.type, "ADDED");
    // The status controller records that its priority level exists; wait for that write.
    await eventually("team's Dangling condition", async () => {
      const cur = await get(t, `${FS}/team`);
      return cur.status.conditions?.length === 1;
    });

    for (const [path, kind] of [[`${FS}/team`, "FlowSchema"], [`${PLC}/team`, "PriorityLevel"]]) {
      const asJson = await get(t, path);
      const res = await t.fetch(path, { headers: { accept: PB } });
      assert.equal(res.headers.get("content-type"), PB);
      const asPb = decodeObject(new Uint8Array(await res.arrayBuffer()));
      assert.deepEqual(asPb, asJson, kind);
      const put = await t.fetch(path, {
        method: "PUT",
        headers: { "content-type": PB, accept: "application/json" },
        body: encodeObject(asPb),
      });
      assert.equal(put.status, 200, await put.clone().text());
      assert.deepEqual(await put.json(), asJson, kind);
    }

    const updated = await write(t, "PUT", `${FS}/team`, {
      ...fs,
      metadata: { name: "team" },
      spec: { ...fs.spec, matchingPrecedence: 0 },
    });
    assert.equal(updated.spec.matchingPrecedence, 1000, "defaulted again on update");
    const merged = await send(t, "PATCH", `${FS}/team`, {
      spec: { matchingPrecedence: 700 },
    }, "application/merge-patch+json");
    assert.equal(merged.body.spec.matchingPrecedence, 700);
    assert.equal(merged.body.metadata.generation, 2);
    const jp = await send(t, "PATCH", `${PLC}/team`, [
      { op: "replace", path: "/spec/limited/lendablePercent", value: 20 },
    ], "application/json-patch+json");
    assert.equal(jp.body.spec.limited.lendablePercent, 20);
    const smp = await send(t, "PATCH", `${FS}/team`, {
      metadata: { labels: { s: "1" } },
    }, "application/strategic-merge-patch+json");
    assert.equal(smp.status, 200);
    const applied = await send(
      t,
      "PATCH",
      `${PLC}/applied?fieldManager=tester`,
      JSON.stringify(priorityLevel("applied", { nominalConcurrencyShares: 3 })),
      "application/apply-patch+yaml",
    );
    assert.equal(applied.status, 201, JSON.stringify(applied.body));
    assert.equal(applied.body.spec.limited.nominalConcurrencyShares, 3);
    assert.equal(applied.body.spec.limited.limitResponse.queuing.queues, 64);

    // Status goes through /status only.
    const cond = { type: "Dangling", status: "False", reason: "Found" };
    const viaMain = await send(t, "PATCH", `${FS}/team`, {
      status: { conditions: [cond] },
    }, "application/merge-patch+json");
    assert.notDeepEqual(viaMain.body.status.conditions, [cond]);
    const viaStatus = await send(t, "PATCH", `${FS}/team/status`, {
      status: { conditions: [cond] },
    }, "application/merge-patch+json");
    assert.equal(viaStatus.status, 200, JSON.stringify(viaStatus.body));
    assert.deepEqual(viaStatus.body.status.conditions, [cond]);
    const row = (await (await t.fetch(`${FS}/team`, { headers: { accept: TABLE } })).json())
      .rows[0].cells;
    assert.deepEqual([row[1], row[2], row[3], row[5]], ["team", 700, "ByNamespace", "False"]);

    const disc = await get(t, GV);
    assert.deepEqual(disc.resources.map((r: Json) => r.name).sort(), [
      "flowschemas",
      "flowschemas/status",
      "prioritylevelconfigurations",
      "prioritylevelconfigurations/status",
    ]);

    for (const path of [`${FS}/team`, `${PLC}/team`]) {
      const del = await t.fetch(path, { method: "DELETE" });
      assert.equal(del.status, 200);
      await del.body?.cancel();
    }
    for (const w of [wf, wp]) {
      let e = await w.next();
      while (e && e.type !== "DELETED") e = await w.next();
      assert.equal(e?.object.metadata.name, "team");
      await w.cancel();
    }
  });
});

async function invalid(t: TestServer, path: string, body: Json, method = "POST"): Promise<string> {
  const r = await send(t, method, path, body);
  assert.equal(r.status, 422, JSON.stringify(r.body));
  return r.body.message;
}

Deno.test("flowcontrol objects are validated with Kubernetes' messages", async () => {
  await withServer(async (t) => {
    const fsInvalid = (n: string) => `FlowSchema.flowcontrol.apiserver.k8s.io "${n}" is invalid: `;
    const plInvalid = (n: string) =>
      `PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "${n}" is invalid: `;
    assert.equal(
      await invalid(t, FS, flowSchema("one", { matchingPrecedence: 1 })),
      fsInvalid("one") +
        "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have " +
        "matchingPrecedence 1",
    );
    assert.equal(
      await invalid(t, FS, flowSchema("big", { matchingPrecedence: 10001 })),
      fsInvalid("big") +
        "spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000",
    );
    assert.equal(
      await invalid(t, FS, flowSchema("nopl", { priorityLevelConfiguration: { name: "" } })),
      fsInvalid("nopl") +
        "spec.priorityLevelConfiguration.name: Required value: must reference a priority level",
    );
    assert.equal(
      await invalid(t, FS, flowSchema("norules", { rules: [{ subjects: [] }] })),
      fsInvalid("norules") +
        "[spec.rules[0].subjects: Required value: subjects must contain at least one value, " +
        "spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has " +
        "to be non-empty]",
    );
    assert.match(
      await invalid(
        t,
        FS,
        flowSchema("verbs", {
          rules: [{
            subjects: [{ kind: "Robot" }],
            nonResourceRules: [{ verbs: ["*", "get"], nonResourceURLs: ["/a*"] }],
          }],
        }),
      ),
      /spec.rules\[0\].subjects\[0\].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User".*spec.rules\[0\].nonResourceRules\[0\].verbs: Invalid value: \["\*","get"\]: if '\*' is present, must not specify other verbs.*nonResourceURLs\[0\]: Invalid value: "\/a\*": wildcard can only do suffix glob matching/,
    );
    assert.match(
      await invalid(
        t,
        FS,
        flowSchema("ns", {
          rules: [{
            subjects: [{ kind: "User", user: { name: "u" } }],
            resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }],
          }],
        }),
      ),
      /spec.rules\[0\].resourceRules\[0\].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace/,
    );
    const exempt = await get(t, `${FS}/exempt`);
    assert.match(
      await invalid(t, `${FS}/exempt`, {
        ...exempt,
        // Unconditional: the status controller may write the object meanwhile.
        metadata: { name: "exempt" },
        spec: { ...exempt.spec, matchingPrecedence: 2 },
      }, "PUT"),
      /spec: Invalid value: .*: spec of 'exempt' must equal the fixed value/,
    );

    assert.equal(
      await invalid(t, PLC, { ...priorityLevel("exempt-ish"), spec: { type: "Exempt" } }),
      plInvalid("exempt-ish") +
        "spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'",
    );
    assert.equal(
      await invalid(
        t,
        PLC,
        priorityLevel("hand", {
          limitResponse: { type: "Queue", queuing: { queues: 4, handSize: 5 } },
        }),
      ),
      plInvalid("hand") + "spec.limited.limitResponse.queuing.handSize: Invalid value: 5: " +
        "should not be greater than queues (4)",
    );
    assert.equal(
      await invalid(
        t,
        PLC,
        priorityLevel("entropy", {
          limitResponse: { type: "Queue", queuing: { queues: 128, handSize: 10 } },
        }),
      ),
      plInvalid("entropy") + "spec.limited.limitResponse.queuing.handSize: Invalid value: 10: " +
        "required entropy bits of deckSize 128 and handSize 10 should not be greater than 60",
    );
    assert.equal(
      await invalid(t, PLC, priorityLevel("lend", { lendablePercent: 101 })),
      plInvalid("lend") +
        "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive",
    );
    assert.equal(
      await invalid(
        t,
        PLC,
        priorityLevel("reject", {
          limitResponse: { type: "Reject", queuing: {} },
        }),
      ),
      plInvalid("reject") + "spec.limited.limitResponse.queuing: Forbidden: must be nil if " +
        "limited.limitResponse.type is not Limited",
    );
    const catchAll = await get(t, `${PLC}/catch-all`);
    assert.match(
      await invalid(t, `${PLC}/catch-all`, {
        ...catchAll,
        spec: {
          ...catchAll.spec,
          limited: { ...catchAll.spec.limited, nominalConcurrencyShares: 6 },
        },
      }, "PUT"),
      /spec: Invalid value: .*: spec of 'catch-all' must equal the fixed value/,
    );
    const exemptPl = await get(t, `${PLC}/exempt`);
    const changed = await send(t, "PUT", `${PLC}/exempt`, {
      ...exemptPl,
      spec: { type: "Exempt", exempt: { nominalConcurrencyShares: 3, lendablePercent: 10 } },
    });
    assert.equal(changed.status, 200, "the exempt level's spec.exempt may change");
  });
});

Deno.test({
  name: "kubectl get flowschemas and prioritylevelconfigurations print Kubernetes' columns",
  ignore: skipWithoutKubectl("the kubectl flowcontrol tests"),
  async fn() {
    await withServer(async (t) => {
      const k = kubectlFor(t);
      const fs = ok(await kubectl(k, ["get", "flowschemas"]));
      assert.match(
        fs,
        /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL\n/,
      );
      assert.match(fs, /\nexempt\s+exempt\s+1\s+<none>\s+\S+\s+\S+\n/);
      const pl = ok(await kubectl(k, ["get", "prioritylevelconfigurations"]));
      assert.match(
        pl,
        /^NAME\s+TYPE\s+NOMINALCONCURRENCYSHARES\s+QUEUES\s+HANDSIZE\s+QUEUELENGTHLIMIT\s+AGE\n/,
      );
      assert.match(pl, /\nworkload-high\s+Limited\s+40\s+128\s+6\s+50\s+\S+\n/);
      const explained = ok(await kubectl(k, ["explain", "prioritylevelconfiguration.spec"]));
      assert.match(explained, /KIND:\s+PriorityLevelConfiguration/);
      assert.match(explained, /limited\s+<LimitedPriorityLevelConfiguration>/);
      const names = ok(await kubectl(k, ["get", "flowschemas", "-o", "name"]));
      assert.match(names, /flowschema.flowcontrol.apiserver.k8s.io\/catch-all/);
    });
  },
});

Deno.test("a FlowSchema's Dangling condition follows its priority level", async () => {
  await withServer(async (t) => {
    await write(
      t,
      "POST",
      FS,
      flowSchema("orphan", { priorityLevelConfiguration: { name: "later" } }),
    );
    const dangling = (want: string) => async () => {
      const fs = await get(t, `${FS}/orphan`);
      const c = (fs.status.conditions ?? []).find((c: Json) => c.type === "Dangling");
      return c?.status === want ? c : undefined;
    };
    const missing = await eventually("Dangling=True", dangling("True"));
    assert.equal(missing.reason, "NotFound");
    assert.equal(
      missing.message,
      'This FlowSchema references the PriorityLevelConfiguration object named "later" but ' +
        "there is no such object",
    );
    await write(t, "POST", PLC, priorityLevel("later"));
    const found = await eventually("Dangling=False", dangling("False"));
    assert.equal(found.reason, "Found");
    assert.ok(found.lastTransitionTime);
  });
});
