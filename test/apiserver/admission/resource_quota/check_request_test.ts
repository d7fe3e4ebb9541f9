/** checkRequest(): kube's quota check of one write against a namespace's quotas. */
import assert from "node:assert/strict";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { checkRequest } from "../../../../apiserver/admission/resource_quota/check_request.ts";
import {
  podEvaluator,
  serviceEvaluator,
} from "../../../../apiserver/admission/resource_quota/evaluators.ts";
import { toJson } from "../../../../apiserver/admission/resource_quota/resource_list.ts";

const quota = (
  name: string,
  hard: Record<string, string>,
  used: Record<string, string>,
  spec = {},
) => ({
  metadata: { name, resourceVersion: "5" },
  spec: { hard, ...spec },
  status: { hard, used },
});
const svc = (type: string, rv?: string): KubeObject => ({
  metadata: { name: "s", ...(rv ? { resourceVersion: rv } : {}) },
  spec: { type, ports: [{ port: 80 }, { port: 81 }] },
});
const write = (object: KubeObject, oldObject?: KubeObject) => ({
  operation: oldObject ? "UPDATE" as const : "CREATE" as const,
  subresource: "",
  object,
  oldObject,
  group: "",
  resource: "services",
  name: "s",
  now: Date.now(),
});

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (err instanceof StatusError && err.code === 403) return err.message;
    throw err;
  }
  throw new Error("not refused");
}

Deno.test("checkRequest() charges an update only for what it grows by", () => {
  const q = quota("svc", { services: "5", "services.nodeports": "3" }, {
    services: "1",
    "services.nodeports": "0",
  });
  const growth = checkRequest(
    [q],
    write(svc("NodePort"), svc("ClusterIP", "4")),
    serviceEvaluator(),
  );
  assert.deepEqual(growth.map((c) => toJson(c.used)), [{
    services: "1",
    "services.nodeports": "2",
  }]);
  assert.deepEqual(
    checkRequest([q], write(svc("ClusterIP"), svc("NodePort", "4")), serviceEvaluator()),
    [],
  );
  const full = quota("svc", { "services.nodeports": "1" }, { "services.nodeports": "0" });
  assert.equal(
    refusal(() =>
      checkRequest([full], write(svc("NodePort"), svc("ClusterIP", "4")), serviceEvaluator())
    ),
    `services "s" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1`,
  );
});

Deno.test("checkRequest() applies only quotas whose scopes select the pod", () => {
  const bestEffort = quota("be", { pods: "1" }, { pods: "1" }, { scopes: ["BestEffort"] });
  const pod = (resources?: object): KubeObject => ({
    metadata: { name: "p" },
    spec: { containers: [{ name: "c", ...(resources ? { resources } : {}) }] },
  });
  const w = (o: KubeObject) => ({ ...write(o), resource: "pods", name: "p" });
  assert.deepEqual(
    checkRequest([bestEffort], w(pod({ requests: { cpu: "1" } })), podEvaluator()),
    [],
  );
  assert.equal(
    refusal(() => checkRequest([bestEffort], w(pod()), podEvaluator())),
    `pods "p" is forbidden: exceeded quota: be, requested: pods=1, used: pods=1, limited: pods=1`,
  );
});
