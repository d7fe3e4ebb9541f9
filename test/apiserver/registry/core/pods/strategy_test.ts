import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { podKind } from "../../../../../apiserver/registry/core/pods/strategy.ts";
import { validateLikeRequest } from "../../../../support/validate_like_request.ts";

const { strategy } = podKind;
const pod = (spec: unknown, status?: unknown): KubeObject => ({
  metadata: { name: "p", namespace: "default" },
  ...(spec === undefined ? {} : { spec }),
  ...(status === undefined ? {} : { status }),
});
const container = (rest: Record<string, unknown> = {}) => ({ name: "c", image: "img:1", ...rest });
/** What a request gets: the schema's type errors first (a 422 before the store), else the strategy's. */
const errs = (obj: KubeObject) =>
  validateLikeRequest(podKind, obj).map((e) => `${e.type} ${e.field}`);

Deno.test("podKind.strategy.prepareForCreate() sets Kubernetes' defaults", async (t) => {
  await t.step("pod and container defaults, status reset", () => {
    const obj = pod({ containers: [container()] }, { phase: "Running" });
    strategy.prepareForCreate!(obj);
    const spec = obj.spec as Record<string, unknown>;
    assert.equal(spec.restartPolicy, "Always");
    assert.equal(spec.dnsPolicy, "ClusterFirst");
    assert.equal(spec.terminationGracePeriodSeconds, 30);
    assert.equal(spec.schedulerName, "default-scheduler");
    assert.deepEqual(spec.securityContext, {});
    assert.equal(spec.enableServiceLinks, true);
    assert.equal(spec.priority, 0);
    const c = (spec.containers as Record<string, unknown>[])[0];
    assert.equal(c.terminationMessagePath, "/dev/termination-log");
    assert.equal(c.terminationMessagePolicy, "File");
    assert.deepEqual(c.resources, {});
    assert.deepEqual(obj.status, { phase: "Pending", qosClass: "BestEffort" });
  });
  await t.step("client values are kept", () => {
    const obj = pod({ containers: [container()], restartPolicy: "Never", priority: 5 });
    strategy.prepareForCreate!(obj);
    const spec = obj.spec as Record<string, unknown>;
    assert.equal(spec.restartPolicy, "Never");
    assert.equal(spec.priority, 5);
  });
  const pullPolicies: [string, string][] = [
    ["busybox", "Always"],
    ["busybox:latest", "Always"],
    ["busybox:1.36", "IfNotPresent"],
    ["registry:5000/busybox", "Always"],
    ["registry:5000/busybox:1", "IfNotPresent"],
    ["busybox@sha256:abc", "IfNotPresent"],
  ];
  for (const [image, want] of pullPolicies) {
    await t.step(`imagePullPolicy of ${image} is ${want}`, () => {
      const obj = pod({
        containers: [{ name: "c", image }],
        initContainers: [{ name: "i", image }],
      });
      strategy.prepareForCreate!(obj);
      const spec = obj.spec as Record<string, Record<string, unknown>[]>;
      assert.equal(spec.containers[0].imagePullPolicy, want);
      assert.equal(spec.initContainers[0].imagePullPolicy, want);
    });
  }
});

Deno.test("podKind.strategy.validate() checks containers and spec fields", async (t) => {
  const cases: [string, unknown, string[]][] = [
    ["valid", {
      containers: [container({ command: ["sh"], args: ["-c"], env: [{ name: "A", value: "1" }] })],
    }, []],
    ["no spec", undefined, ["FieldValueRequired spec"]],
    ["no containers", {}, ["FieldValueRequired spec.containers"]],
    ["empty containers", { containers: [] }, ["FieldValueRequired spec.containers"]],
    ["container not an object", { containers: ["c"] }, [
      "FieldValueTypeInvalid spec.containers[0]",
    ]],
    ["no name", { containers: [{ image: "i" }] }, ["FieldValueRequired spec.containers[0].name"]],
    ["name not a label", { containers: [container({ name: "C_1" })] }, [
      "FieldValueInvalid spec.containers[0].name",
    ]],
    // IsDNS1123Label reports each problem: a 64-character name that is also not a label.
    ["name too long and not a label", { containers: [container({ name: `${"a".repeat(63)}_` })] }, [
      "FieldValueInvalid spec.containers[0].name",
      "FieldValueInvalid spec.containers[0].name",
    ]],
    ["duplicate names", { containers: [container(), container()] }, [
      "FieldValueDuplicate spec.containers[1].name",
    ]],
    ["no image", { containers: [{ name: "c" }] }, ["FieldValueRequired spec.containers[0].image"]],
    ["blank image", { containers: [container({ image: " " })] }, [
      "FieldValueRequired spec.containers[0].image",
    ]],
    ["command not strings", { containers: [container({ command: [1] })] }, [
      "FieldValueTypeInvalid spec.containers[0].command[0]",
    ]],
    ["env not a list", { containers: [container({ env: {} })] }, [
      "FieldValueTypeInvalid spec.containers[0].env",
    ]],
    ["env without a name", { containers: [container({ env: [{ value: "x" }] })] }, [
      "FieldValueRequired spec.containers[0].env[0].name",
    ]],
    ["env value not a string", { containers: [container({ env: [{ name: "A", value: 1 }] })] }, [
      "FieldValueTypeInvalid spec.containers[0].env[0].value",
    ]],
    ["bad init container", { containers: [container()], initContainers: [{ name: "i" }] }, [
      "FieldValueRequired spec.initContainers[0].image",
    ]],
    ["unknown restartPolicy", { containers: [container()], restartPolicy: "Sometimes" }, [
      "FieldValueNotSupported spec.restartPolicy",
    ]],
    ["nodeName not a string", { containers: [container()], nodeName: 1 }, [
      "FieldValueTypeInvalid spec.nodeName",
    ]],
    ["negative grace period", { containers: [container()], terminationGracePeriodSeconds: -1 }, [
      "FieldValueInvalid spec.terminationGracePeriodSeconds",
    ]],
  ];
  for (const [name, spec, want] of cases) {
    await t.step(name, () => assert.deepEqual(errs(pod(spec)), want));
  }
});

Deno.test("podKind.strategy.validateUpdate() forbids nodeName changes (binding is its own subresource)", async (t) => {
  const cases: [string, string | undefined, string | undefined, string[]][] = [
    ["setting it", undefined, "node-1", ["FieldValueForbidden spec"]],
    ["same node", "node-1", "node-1", []],
    ["another node", "node-1", "node-2", ["FieldValueForbidden spec"]],
    ["unbinding", "node-1", undefined, ["FieldValueForbidden spec"]],
  ];
  for (const [name, before, after, want] of cases) {
    await t.step(name, () => {
      const old = pod({ containers: [container()], ...(before ? { nodeName: before } : {}) });
      const next = pod({ containers: [container()], ...(after ? { nodeName: after } : {}) });
      assert.deepEqual(
        strategy.validateUpdate!(next, old).map((e) => `${e.type} ${e.field}`),
        want,
      );
    });
  }
});

Deno.test("podKind.strategy.selectableFields() exposes the declared fields", async (t) => {
  await t.step("values", () => {
    const fields = strategy.selectableFields!(pod({
      containers: [container()],
      nodeName: "n1",
      restartPolicy: "Never",
      schedulerName: "s",
      serviceAccountName: "sa",
      hostNetwork: true,
    }, { phase: "Running", podIP: "10.0.0.1", nominatedNodeName: "n2" }));
    assert.deepEqual(fields, {
      "spec.nodeName": "n1",
      "spec.restartPolicy": "Never",
      "spec.schedulerName": "s",
      "spec.serviceAccountName": "sa",
      "spec.hostNetwork": "true",
      "status.phase": "Running",
      "status.podIP": "10.0.0.1",
      "status.nominatedNodeName": "n2",
    });
  });
  await t.step("empty values and the names list agree", () => {
    const fields = strategy.selectableFields!(pod({}));
    assert.equal(fields["spec.hostNetwork"], "false");
    assert.equal(fields["spec.nodeName"], "");
    // status.podIPs is a label kube's conversion accepts without a value to select.
    assert.deepEqual(
      [...Object.keys(fields), "status.podIPs"].sort(),
      [...strategy.selectableFieldNames!].sort(),
    );
  });
  await t.step("status.podIP is the first of status.podIPs", () => {
    const fields = strategy.selectableFields!(
      pod({}, { podIP: "10.0.0.1", podIPs: [{ ip: "10.0.0.2" }, { ip: "fd00::2" }] }),
    );
    assert.equal(fields["status.podIP"], "10.0.0.2");
  });
});

Deno.test("podKind.strategy.gracePeriod() waits only for pods bound to a node", async (t) => {
  const cases: [string, unknown, unknown, number | undefined, number][] = [
    ["unbound", {}, undefined, undefined, 0],
    ["bound, default 30", { nodeName: "n" }, undefined, undefined, 30],
    [
      "bound, pod's own period",
      { nodeName: "n", terminationGracePeriodSeconds: 5 },
      undefined,
      undefined,
      5,
    ],
    [
      "bound, negative pod period is 1",
      { nodeName: "n", terminationGracePeriodSeconds: -3 },
      undefined,
      undefined,
      1,
    ],
    ["bound, request wins", { nodeName: "n", terminationGracePeriodSeconds: 5 }, undefined, 0, 0],
    ["succeeded", { nodeName: "n" }, { phase: "Succeeded" }, undefined, 0],
    ["failed", { nodeName: "n" }, { phase: "Failed" }, 10, 0],
  ];
  for (const [name, spec, status, requested, want] of cases) {
    await t.step(name, () => {
      const options = requested === undefined ? {} : { gracePeriodSeconds: requested };
      assert.equal(strategy.gracePeriod!(pod(spec, status), options), want);
    });
  }
});
