/**
 * The ResourceQuota plugin's compare-and-swap charge: two plugin instances (as two API servers
 * sharing one database, each with its own per-namespace serialization) admitting concurrent
 * creates never take a quota past its hard limit; a dry run is checked but not charged.
 */
import assert from "node:assert/strict";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { resourceQuota } from "../../../../apiserver/admission/resource_quota/resource_quota.ts";
import { AdmissionChain } from "../../../../apiserver/registry/generic/admission.ts";
import { Store } from "../../../../apiserver/registry/generic/store.ts";
import { configMapKind } from "../../../../apiserver/registry/core/configmaps/strategy.ts";
import { resourceQuotaKind } from "../../../../apiserver/registry/core/resourcequotas/strategy.ts";
import { withTempStorage } from "../../../support/registry_harness.ts";

async function code(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 201;
  } catch (err) {
    if (err instanceof StatusError) return err.code;
    throw err;
  }
}

Deno.test("resourceQuota() charges by compare-and-swap: two servers never overshoot", async () => {
  await withTempStorage("resource_quota_cas_", async ({ storage }) => {
    const quotas = new Store(resourceQuotaKind, { storage });
    const lookup = { lookup: () => quotas };
    const server = () =>
      new Store(configMapKind, { storage, admission: new AdmissionChain([resourceQuota(lookup)]) });
    const [a, b] = [server(), server()];
    const created = await quotas.create("ns", {
      metadata: { name: "q" },
      spec: { hard: { "count/configmaps": "4" } },
    });
    await quotas.update("ns", "q", {
      ...created,
      status: { hard: { "count/configmaps": "4" }, used: { "count/configmaps": "0" } },
    }, { subresource: "status" });
    const dry = await code(a.create("ns", { metadata: { name: "dry" } }, { dryRun: true }));
    assert.equal(dry, 201);
    const codes = await Promise.all(
      Array.from(
        { length: 12 },
        (_, i) => code((i % 2 ? a : b).create("ns", { metadata: { name: `cm-${i}` } })),
      ),
    );
    assert.equal(codes.filter((c) => c === 201).length, 4, JSON.stringify(codes));
    assert.equal(codes.filter((c) => c === 403).length, 8, JSON.stringify(codes));
    const q = await quotas.get("ns", "q");
    assert.deepEqual((q.status as { used: unknown }).used, { "count/configmaps": "4" });
    const stored = await a.list("ns", { plan: { mode: "latest" } });
    assert.equal(stored.items.length, 4);
  });
});

Deno.test("resourceQuota() refuses a create while the quota's usage is unknown", async () => {
  await withTempStorage("resource_quota_unknown_", async ({ storage }) => {
    const quotas = new Store(resourceQuotaKind, { storage });
    const cms = new Store(configMapKind, {
      storage,
      admission: new AdmissionChain([resourceQuota({ lookup: () => quotas })]),
    });
    const created = await quotas.create("ns", {
      metadata: { name: "q" },
      spec: { hard: { configmaps: "1" } },
    });
    await quotas.update("ns", "q", { ...created, status: { hard: { configmaps: "1" } } }, {
      subresource: "status",
    });
    await assert.rejects(
      cms.create("ns", { metadata: { name: "x" } }),
      (err: StatusError) =>
        err.code === 403 &&
        err.message ===
          `configmaps "x" is forbidden: status unknown for quota: q, resources: configmaps`,
    );
  });
});
