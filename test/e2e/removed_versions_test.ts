/**
 * The versions kube no longer serves (the spec's "versions no longer served" table) answer 404
 * with kube's NotFound Status, by default and with every version enabled (`api/all=true`), also
 * where a newer alpha or beta version of the same group version string is served
 * (storage.k8s.io/v1beta1 VolumeAttributesClass beside the removed v1beta1 StorageClass); and
 * `--runtime-config` naming a removed version fails at start in kube's words.
 */
import assert from "node:assert/strict";
import { parseServerOptions } from "../../apiserver/options.ts";
import { startServer } from "../../apiserver/server.ts";
import { Logger } from "../../shared/log/mod.ts";
import { startTestServer } from "../support/test_server.ts";

/** One removed resource per row of the table (and its group version's root). */
const REMOVED: readonly string[] = [
  "/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas",
  "/apis/flowcontrol.apiserver.k8s.io/v1beta3/prioritylevelconfigurations",
  "/apis/flowcontrol.apiserver.k8s.io/v1beta2/flowschemas",
  "/apis/flowcontrol.apiserver.k8s.io/v1beta1/flowschemas",
  "/apis/storage.k8s.io/v1beta1/csistoragecapacities",
  "/apis/autoscaling/v2beta2/horizontalpodautoscalers",
  "/apis/autoscaling/v2beta1/horizontalpodautoscalers",
  "/apis/batch/v1beta1/cronjobs",
  "/apis/discovery.k8s.io/v1beta1/endpointslices",
  "/apis/events.k8s.io/v1beta1/events",
  "/apis/policy/v1beta1/poddisruptionbudgets",
  "/apis/policy/v1beta1/podsecuritypolicies",
  "/apis/node.k8s.io/v1beta1/runtimeclasses",
  "/apis/admissionregistration.k8s.io/v1beta1/mutatingwebhookconfigurations",
  "/apis/admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations",
  "/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions",
  "/apis/apiregistration.k8s.io/v1beta1/apiservices",
  "/apis/authentication.k8s.io/v1beta1/tokenreviews",
  "/apis/authorization.k8s.io/v1beta1/subjectaccessreviews",
  "/apis/authorization.k8s.io/v1beta1/selfsubjectrulesreviews",
  "/apis/certificates.k8s.io/v1beta1/certificatesigningrequests",
  "/apis/coordination.k8s.io/v1beta1/leases",
  "/apis/extensions/v1beta1/ingresses",
  "/apis/networking.k8s.io/v1beta1/ingresses",
  "/apis/networking.k8s.io/v1beta1/ingressclasses",
  "/apis/rbac.authorization.k8s.io/v1beta1/clusterroles",
  "/apis/scheduling.k8s.io/v1beta1/priorityclasses",
  "/apis/storage.k8s.io/v1beta1/storageclasses",
  "/apis/storage.k8s.io/v1beta1/csidrivers",
  "/apis/storage.k8s.io/v1beta1/csinodes",
  "/apis/storage.k8s.io/v1beta1/volumeattachments",
  "/apis/extensions/v1beta1/networkpolicies",
  "/apis/extensions/v1beta1/daemonsets",
  "/apis/apps/v1beta2/daemonsets",
  "/apis/apps/v1beta1/deployments",
  "/apis/apps/v1beta2/statefulsets",
  "/apis/apps/v1beta2/replicasets",
  "/apis/extensions/v1beta1/podsecuritypolicies",
];

/** Group versions that no longer exist at all (their roots 404 too). */
const REMOVED_VERSIONS = [...new Set(REMOVED.map((p) => p.split("/").slice(0, 4).join("/")))]
  .filter((gv) =>
    !["/apis/storage.k8s.io/v1beta1", "/apis/admissionregistration.k8s.io/v1beta1"].includes(gv)
  );

const NOT_FOUND = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "the server could not find the requested resource",
  reason: "NotFound",
  details: {},
  code: 404,
};

for (const flags of [[], ["--runtime-config=api/all=true"]]) {
  Deno.test(`removed versions answer kube's 404 (${flags.join(" ") || "default"})`, async () => {
    const t = await startTestServer(flags);
    try {
      for (const path of [...REMOVED, ...REMOVED.map((p) => `${p}/x`), ...REMOVED_VERSIONS]) {
        for (const method of ["GET", "POST"]) {
          const res = await t.fetch(path, {
            method,
            headers: { "content-type": "application/json" },
            body: method === "POST" ? "{}" : undefined,
          });
          assert.equal(res.status, 404, `${method} ${path}`);
          assert.deepEqual(await res.json(), NOT_FOUND, `${method} ${path}`);
        }
      }
      const groups = await (await t.fetch("/apis")).json();
      const served = groups.groups.flatMap((g: { versions: { groupVersion: string }[] }) =>
        g.versions.map((v) => `/apis/${v.groupVersion}`)
      );
      for (const gv of REMOVED_VERSIONS) assert.ok(!served.includes(gv), gv);
    } finally {
      await t.close();
    }
  });
}

Deno.test("--runtime-config naming a removed version fails at start in kube's words", async () => {
  const dir = await Deno.makeTempDir({ prefix: "removed-versions-" });
  try {
    const parsed = parseServerOptions([
      `--data-dir=${dir}`,
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      "--runtime-config=batch/v1beta1=true,flowcontrol.apiserver.k8s.io/v1beta3=true," +
      "policy/v1beta1/podsecuritypolicies=true,extensions/v1beta1=true",
    ]);
    assert.ok(parsed.ok);
    await assert.rejects(
      startServer(parsed.options, { logger: new Logger({ sink: () => {} }) }),
      (err: Error) => {
        assert.equal(
          err.message,
          "--runtime-config: group version batch/v1beta1 that has not been registered; " +
            "group version flowcontrol.apiserver.k8s.io/v1beta3 that has not been registered; " +
            "group version policy/v1beta1 that has not been registered; " +
            "unknown api groups extensions",
        );
        return true;
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
