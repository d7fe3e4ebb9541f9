/**
 * End to end: the server started with feature gate and metric flags, over HTTPS: the GA gate
 * warning in the log, the gates on `/metrics`, the metric lifecycle's meta metrics, a disabled
 * metric, stability levels in the help text, and `/metrics/slis` fed by `/readyz`.
 */
import assert from "node:assert/strict";
import { Logger } from "../../shared/log/mod.ts";
import { startTestServer } from "../support/test_server.ts";

function samples(text: string, name: string): string[] {
  return text.split("\n").filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

Deno.test("the server applies --feature-gates and the metric flags at start", async (t) => {
  const lines: string[] = [];
  const ts = await startTestServer([
    "--feature-gates=APISelfSubjectReview=true,WatchList=true",
    "--show-hidden-metrics-for-version=1.31",
    "--disabled-metrics=apiserver_request_duration_seconds",
  ], { logger: new Logger({ verbosity: 0, sink: (l) => void lines.push(l) }) });
  try {
    await t.step("setting a GA gate warns at start", () => {
      assert.ok(
        lines.some((l) =>
          l.includes("Setting GA feature gate APISelfSubjectReview=true. It will be removed")
        ),
        lines.join("\n"),
      );
    });
    await (await ts.fetch("/api/v1/namespaces")).body?.cancel();
    const res = await ts.fetch("/metrics");
    assert.equal(res.status, 200);
    const text = await res.text();
    await t.step("the gates are on /metrics with their stage", () => {
      const gates = samples(text, "kubernetes_feature_enabled");
      for (
        const want of [
          'kubernetes_feature_enabled{name="WatchList",stage="ALPHA"} 1',
          'kubernetes_feature_enabled{name="APIResponseCompression",stage="BETA"} 1',
          'kubernetes_feature_enabled{name="APISelfSubjectReview",stage=""} 1',
          'kubernetes_feature_enabled{name="AuthorizeWithSelectors",stage="ALPHA"} 0',
        ]
      ) assert.ok(gates.includes(want), `${want}\n${gates.join("\n")}`);
    });
    await t.step("stability levels and meta metrics as Kubernetes exposes them", () => {
      assert.ok(text.includes("# HELP apiserver_request_total [STABLE] Counter of apiserver"));
      assert.ok(text.includes("# HELP authentication_attempts [ALPHA] "));
      assert.ok(text.includes("# HELP registered_metrics_total [BETA] "));
      const registered = samples(text, "registered_metrics_total");
      for (const level of ["ALPHA", "BETA", "STABLE"]) {
        assert.ok(
          registered.some((l) =>
            l.startsWith(
              `registered_metrics_total{deprecated_version="",stability_level="${level}"} `,
            )
          ),
          `${level}: ${registered.join("\n")}`,
        );
      }
      assert.deepEqual(samples(text, "disabled_metrics_total"), ["disabled_metrics_total 1"]);
      assert.deepEqual(samples(text, "hidden_metrics_total"), ["hidden_metrics_total 1"]);
      assert.ok(!text.includes("apiserver_request_duration_seconds"), "disabled metric shown");
      assert.ok(samples(text, "apiserver_request_total").length > 0);
    });
    await t.step("/metrics/slis has the health checks /readyz ran", async () => {
      assert.equal(await (await ts.fetch("/readyz")).text(), "ok");
      const slis = await ts.fetch("/metrics/slis");
      assert.equal(slis.status, 200);
      assert.match(slis.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
      const body = await slis.text();
      for (
        const want of [
          "# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.",
          'kubernetes_healthcheck{name="ping",type="readyz"} 1',
          'kubernetes_healthcheck{name="shutdown",type="readyz"} 1',
          'kubernetes_healthchecks_total{name="ping",status="success",type="readyz"} 1',
        ]
      ) assert.ok(body.includes(want), `${want}\n${body}`);
      assert.ok(!body.includes("apiserver_request_total"), "SLIs are a registry of their own");
    });
    await t.step("DELETE /metrics/slis resets the SLI series", async () => {
      const del = await ts.fetch("/metrics/slis", { method: "DELETE" });
      assert.equal(await del.text(), "metrics reset\n");
      assert.equal(await (await ts.fetch("/metrics/slis")).text(), "");
    });
    await t.step("/metrics/slis needs a credential like /metrics", async () => {
      const anon = await ts.fetch("/metrics/slis", { auth: false });
      await anon.body?.cancel();
      assert.ok([401, 403].includes(anon.status), String(anon.status));
    });
  } finally {
    await ts.close();
  }
});
