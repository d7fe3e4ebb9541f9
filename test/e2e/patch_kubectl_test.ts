/**
 * End to end with kubectl 1.32 (skipped where it is absent): server-side apply create/update,
 * conflicts and --force-conflicts, client-side to server-side apply migration, kubectl patch
 * (json, merge, strategic), label and annotate, and the managedFields kubectl shows.
 */
import assert from "node:assert/strict";
import {
  kubectlFor,
  kubectlOk as ok,
  type KubectlTarget,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer } from "../support/test_server.ts";

const cm = (name: string, data: Record<string, string>) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "default" },
    data,
  });

type Entry = { manager: string; operation: string; fieldsV1: unknown };

async function managed(
  k: KubectlTarget,
  name: string,
): Promise<[string, string, unknown][]> {
  const out = ok(
    await kubectl(k, ["get", "cm", name, "-o", "json", "--show-managed-fields"]),
  );
  const obj = JSON.parse(out) as { metadata: { managedFields?: Entry[] } };
  return (obj.metadata.managedFields ?? []).map((e) => [e.manager, e.operation, e.fieldsV1]);
}

Deno.test({
  name: "kubectl apply --server-side, conflicts, migration, patch, label and annotate",
  ignore: skipWithoutKubectl("the kubectl patch and apply tests"),
  async fn() {
    const t = await startTestServer();
    const k = kubectlFor(t);
    try {
      const apply = ["apply", "--server-side", "--validate=false", "-f", "-"];
      ok(await kubectl(k, apply, cm("s", { a: "1" })));
      ok(await kubectl(k, apply, cm("s", { a: "1", b: "2" })));
      assert.deepEqual(await managed(k, "s"), [
        ["kubectl", "Apply", { "f:data": { "f:a": {}, "f:b": {} } }],
      ]);
      const conflict = await kubectl(k, [...apply, "--field-manager=other"], cm("s", { a: "9" }));
      assert.notEqual(conflict.code, 0);
      assert.match(
        conflict.stderr,
        /Apply failed with 1 conflict: conflict with "kubectl": \.data\.a/,
      );
      ok(
        await kubectl(
          k,
          [...apply, "--field-manager=other", "--force-conflicts"],
          cm("s", { a: "9" }),
        ),
      );
      assert.deepEqual(await managed(k, "s"), [
        ["kubectl", "Apply", { "f:data": { "f:b": {} } }],
        ["other", "Apply", { "f:data": { "f:a": {} } }],
      ]);

      // Client-side apply, then server-side apply takes the fields over.
      ok(await kubectl(k, ["apply", "--validate=false", "-f", "-"], cm("c", { a: "1" })));
      const csa = await managed(k, "c");
      assert.deepEqual(csa.map((e) => [e[0], e[1]]), [["kubectl-client-side-apply", "Update"]]);
      ok(await kubectl(k, apply, cm("c", { a: "2" })));
      const ssa = await managed(k, "c");
      assert.ok(ssa.some((e) => e[0] === "kubectl" && e[1] === "Apply"), JSON.stringify(ssa));
      assert.ok(!ssa.some((e) => e[0] === "kubectl-client-side-apply"), JSON.stringify(ssa));

      ok(
        await kubectl(k, [
          "patch",
          "cm",
          "c",
          "--type=json",
          "-p",
          '[{"op":"add","path":"/data/j","value":"1"}]',
        ]),
      );
      ok(await kubectl(k, ["patch", "cm", "c", "--type=merge", "-p", '{"data":{"m":"1"}}']));
      ok(await kubectl(k, ["patch", "cm", "c", "-p", '{"data":{"s":"1"}}']));
      ok(await kubectl(k, ["label", "cm", "c", "l=1"]));
      ok(await kubectl(k, ["annotate", "cm", "c", "an=1"]));
      const all = await managed(k, "c");
      const byName = Object.fromEntries(all.map((e) => [e[0], [e[1], e[2]]]));
      assert.deepEqual(byName["kubectl-patch"], ["Update", {
        "f:data": { "f:j": {}, "f:m": {}, "f:s": {} },
      }]);
      assert.deepEqual(byName["kubectl-label"], ["Update", {
        "f:metadata": { "f:labels": { ".": {}, "f:l": {} } },
      }]);
      assert.deepEqual(byName["kubectl-annotate"], ["Update", {
        "f:metadata": { "f:annotations": { "f:an": {} } },
      }]);
      const yaml = ok(
        await kubectl(k, ["get", "cm", "c", "-o", "yaml", "--show-managed-fields"]),
      );
      assert.match(yaml, /managedFields:\n/);
      assert.match(yaml, /fieldsType: FieldsV1/);
    } finally {
      await t.close();
    }
  },
});
