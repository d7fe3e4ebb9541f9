import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { EPHEMERAL_CONTAINERS_SUBRESOURCE as sub } from "../../../../../apiserver/registry/core/pods/ephemeral_containers.ts";

const pod = (ephemeral?: unknown[], annotations?: Record<string, string>): KubeObject => ({
  metadata: { name: "p", namespace: "default", resourceVersion: "5", annotations },
  spec: {
    containers: [{ name: "c", image: "img" }],
    ...(ephemeral ? { ephemeralContainers: ephemeral } : {}),
  },
});
const errs = (next: KubeObject, old: KubeObject) =>
  sub.validateUpdate!(next, old).map((e) => `${e.type} ${e.field}`);

Deno.test("EPHEMERAL_CONTAINERS_SUBRESOURCE.update() takes only the ephemeral containers", () => {
  const old = pod();
  const body = pod([{ name: "e", image: "busybox:1.36" }]);
  (body.spec as Record<string, unknown>).nodeName = "n";
  const next = sub.update!(body, old);
  const spec = next.spec as Record<string, unknown>;
  assert.equal(spec.nodeName, undefined);
  assert.deepEqual(spec.ephemeralContainers, [{
    name: "e",
    image: "busybox:1.36",
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    imagePullPolicy: "IfNotPresent",
  }]);
});

Deno.test("EPHEMERAL_CONTAINERS_SUBRESOURCE.validateUpdate() as ValidatePodEphemeralContainersUpdate", async (t) => {
  const one = [{ name: "e", image: "busybox" }];
  await t.step("adding one", () => assert.deepEqual(errs(pod(one), pod()), []));
  await t.step("a name taken by a container", () => {
    assert.deepEqual(errs(pod([{ name: "c", image: "busybox" }]), pod()), [
      "FieldValueDuplicate spec.ephemeralContainers[0].name",
    ]);
  });
  await t.step("ports, probes and resources", () => {
    const bad = [{
      name: "e",
      image: "busybox",
      ports: [{ containerPort: 1 }],
      readinessProbe: { exec: { command: ["x"] } },
      resources: { limits: { cpu: "1" } },
    }];
    assert.deepEqual(errs(pod(bad), pod()), [
      "FieldValueForbidden spec.ephemeralContainers[0].ports",
      "FieldValueForbidden spec.ephemeralContainers[0].resources",
      "FieldValueForbidden spec.ephemeralContainers[0].readinessProbe",
    ]);
  });
  await t.step("an unknown target container", () => {
    assert.deepEqual(errs(pod([{ ...one[0], targetContainerName: "x" }]), pod()), [
      "FieldValueNotFound spec.ephemeralContainers[0].targetContainerName",
    ]);
  });
  await t.step("removing or changing one", () => {
    assert.deepEqual(errs(pod([]), pod(one)), ["FieldValueForbidden spec.ephemeralContainers"]);
    assert.deepEqual(errs(pod([{ name: "e", image: "alpine" }]), pod(one)), [
      "FieldValueForbidden spec.ephemeralContainers",
    ]);
  });
  await t.step("a static pod", () => {
    const mirror = pod(undefined, { "kubernetes.io/config.mirror": "x" });
    assert.deepEqual(errs(pod(one), mirror), ["FieldValueForbidden "]);
  });
});
