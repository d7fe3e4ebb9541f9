/** kubectl against several versions of a custom resource: conversion by webhook, deprecation warnings. */
import assert from "node:assert/strict";
import { WebhookClient } from "../../apiserver/webhook/webhook_client.ts";
import { startConversionWebhook } from "../support/conversion_webhook.ts";
import { kubectlFor, kubectlOk, runKubectl, skipWithoutKubectl } from "../support/kubectl.ts";
import { startTestServer } from "../support/test_server.ts";
import { crdOf, serveWidgets } from "../support/widget_versions.ts";

Deno.test({
  name: "kubectl reads and writes a webhook-converted version and prints its deprecation warning",
  ignore: skipWithoutKubectl("the custom resource versions kubectl tests"),
  async fn() {
    const s = await startTestServer();
    const hook = await startConversionWebhook();
    const client = new WebhookClient();
    try {
      const conversion = {
        strategy: "Webhook",
        webhook: {
          clientConfig: { url: hook.url, caBundle: hook.caBundle },
          conversionReviewVersions: ["v1"],
        },
      };
      serveWidgets(s, crdOf(conversion), client);
      const k = kubectlFor(s);
      const manifest = JSON.stringify({
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name: "w", namespace: "default" },
        spec: { size: 3 },
      });
      const applied = await runKubectl(k, ["apply", "-f", "-"], manifest);
      kubectlOk(applied);
      assert.match(
        applied.stderr,
        /Warning: example.com\/v1 Widget is deprecated; use example.com\/v2 Widget/,
      );
      const v2 = JSON.parse(kubectlOk(
        await runKubectl(k, ["get", "widgets.v2.example.com", "w", "-n", "default", "-o", "json"]),
      ));
      assert.deepEqual([v2.apiVersion, v2.spec], ["example.com/v2", { dimensions: { size: 3 } }]);
      const v1 = await runKubectl(k, [
        "get",
        "widgets.v1.example.com",
        "-n",
        "default",
        "-o",
        "json",
      ]);
      assert.deepEqual(JSON.parse(kubectlOk(v1)).items[0].spec, { size: 3 });
      assert.match(v1.stderr, /Warning: example.com\/v1 Widget is deprecated/);
      hook.mode = "failed";
      const failed = await runKubectl(k, ["get", "widgets.v1.example.com", "w", "-n", "default"]);
      assert.notEqual(failed.code, 0);
      assert.match(
        failed.stderr,
        /Error from server: conversion webhook for example.com\/v2, Kind=Widget failed: widgets cannot convert today/,
      );
    } finally {
      client.close();
      await hook.close();
      await s.close();
    }
  },
});
