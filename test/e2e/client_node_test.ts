/**
 * End-to-end with @kubernetes/client-node (the official JavaScript client, running on Deno):
 * create, get, list with paging and delete ConfigMaps and Namespaces, configured only from
 * the generated admin.kubeconfig.
 */
import assert from "node:assert/strict";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { startTestServer } from "../support/test_server.ts";
import { call } from "./foundation_helpers.ts";
import { eventually } from "../support/eventually.ts";

Deno.test({
  name: "@kubernetes/client-node creates, gets, pages and deletes ConfigMaps and Namespaces",
  // The client's HTTP agent keeps sockets alive past a test's end.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const s = await startTestServer();
    try {
      const kc = new KubeConfig();
      kc.loadFromFile(s.server.kubeconfigPath);
      const core = kc.makeApiClient(CoreV1Api);
      const ns = "client-node";

      await t.step("create and get a Namespace", async () => {
        const created = await core.createNamespace({ body: { metadata: { name: ns } } });
        assert.equal(created.metadata?.name, ns);
        assert.ok(created.metadata?.uid);
        const got = await core.readNamespace({ name: ns });
        assert.equal(got.status?.phase, "Active");
        assert.deepEqual(got.spec?.finalizers, ["kubernetes"]);
      });
      await t.step("list Namespaces", async () => {
        const l = await core.listNamespace();
        const names = l.items.map((n) => n.metadata?.name);
        assert.ok(names.includes(ns) && names.includes("default"));
      });
      await t.step("create and get ConfigMaps", async () => {
        for (let i = 0; i < 7; i++) {
          const cm = await core.createNamespacedConfigMap({
            namespace: ns,
            body: { metadata: { name: `cm-${i}` }, data: { i: String(i) } },
          });
          assert.equal(cm.metadata?.namespace, ns);
        }
        const got = await core.readNamespacedConfigMap({ name: "cm-3", namespace: ns });
        assert.deepEqual(got.data, { i: "3" });
      });
      await t.step("list ConfigMaps in pages of 3 at one resourceVersion", async () => {
        const seen: string[] = [];
        const versions = new Set<string>();
        const remaining: (number | undefined)[] = [];
        let token: string | undefined;
        do {
          const page = await core.listNamespacedConfigMap({
            namespace: ns,
            limit: 3,
            _continue: token,
          });
          seen.push(...page.items.map((c) => c.metadata!.name!));
          versions.add(page.metadata!.resourceVersion!);
          remaining.push(page.metadata?.remainingItemCount);
          token = page.metadata?._continue || undefined;
        } while (token);
        // And the root-ca-cert-publisher's ConfigMap, in every namespace as in kube.
        const mine = ["cm-0", "cm-1", "cm-2", "cm-3", "cm-4", "cm-5", "cm-6"];
        assert.deepEqual(seen, [...mine, "kube-root-ca.crt"]);
        assert.equal(versions.size, 1);
        assert.deepEqual(remaining, [5, 2, undefined]);
      });
      await t.step("update with a stale resourceVersion is a 409 ApiException", async () => {
        const cm = await core.readNamespacedConfigMap({ name: "cm-0", namespace: ns });
        await core.replaceNamespacedConfigMap({
          name: "cm-0",
          namespace: ns,
          body: { ...cm, data: { i: "changed" } },
        });
        await assert.rejects(
          core.replaceNamespacedConfigMap({ name: "cm-0", namespace: ns, body: cm }),
          (err: { code?: number }) => err.code === 409,
        );
      });
      await t.step("delete a ConfigMap", async () => {
        await core.deleteNamespacedConfigMap({ name: "cm-6", namespace: ns });
        await assert.rejects(
          core.readNamespacedConfigMap({ name: "cm-6", namespace: ns }),
          (err: { code?: number }) => err.code === 404,
        );
      });
      await t.step("delete the Namespace; it and its ConfigMaps go", async () => {
        await core.deleteNamespace({ name: ns });
        await eventually("namespace removal", async () => {
          return (await call(s, "GET", `/api/v1/namespaces/${ns}`)).status === 404;
        });
        const all = await core.listConfigMapForAllNamespaces();
        assert.deepEqual(all.items.filter((c) => c.metadata?.namespace === ns), []);
      });
    } finally {
      await s.close();
    }
  },
});
