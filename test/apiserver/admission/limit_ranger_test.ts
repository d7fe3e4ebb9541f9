import assert from "node:assert/strict";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { limitRanger } from "../../../apiserver/admission/limit_ranger.ts";
import { AdmissionChain } from "../../../apiserver/registry/generic/admission.ts";
import { Store } from "../../../apiserver/registry/generic/store.ts";
import { limitRangeKind } from "../../../apiserver/registry/core/limitranges/strategy.ts";
import { podKind } from "../../../apiserver/registry/core/pods/strategy.ts";
import { withTempStorage } from "../../support/registry_harness.ts";

const container = (
  name: string,
  requests: Record<string, string>,
  limits: Record<string, string>,
) => ({
  name,
  image: "busybox",
  resources: { requests, limits },
});

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "";
  } catch (err) {
    if (err instanceof StatusError && err.code === 403) return err.message;
    throw err;
  }
}

Deno.test("limitRanger() checks Pod items over all containers and init containers, and ratios", async () => {
  await withTempStorage("limit_ranger_", async ({ storage }) => {
    const ranges = new Store(limitRangeKind, { storage });
    const pods = new Store(podKind, {
      storage,
      admission: new AdmissionChain([limitRanger(() => ranges)]),
    });
    await ranges.create("ns", {
      metadata: { name: "lr" },
      spec: {
        limits: [
          { type: "Pod", max: { memory: "1Gi" } },
          { type: "Container", maxLimitRequestRatio: { cpu: "2" } },
        ],
      },
    });
    const two = {
      metadata: { name: "two" },
      spec: {
        containers: [
          container("a", { memory: "300Mi", cpu: "1" }, { memory: "600Mi", cpu: "2" }),
          container("b", { memory: "300Mi", cpu: "1" }, { memory: "600Mi", cpu: "2" }),
        ],
      },
    };
    assert.equal(
      await refusal(pods.create("ns", two)),
      'pods "two" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1200Mi',
    );
    const init = {
      metadata: { name: "init" },
      spec: {
        initContainers: [
          container("i", { memory: "100Mi", cpu: "1" }, { memory: "2Gi", cpu: "3" }),
        ],
        containers: [container("a", { memory: "100Mi", cpu: "1" }, { memory: "100Mi", cpu: "1" })],
      },
    };
    assert.equal(
      await refusal(pods.create("ns", init)),
      // In the order of the range's items.
      'pods "init" is forbidden: [maximum memory usage per Pod is 1Gi, but limit is 2Gi, cpu max limit to request ratio per Container is 2, but provided ratio is 3.000000]',
    );
    const fine = {
      metadata: { name: "fine" },
      spec: {
        containers: [container("a", { memory: "100Mi", cpu: "1" }, { memory: "200Mi", cpu: "2" })],
      },
    };
    assert.equal(await refusal(pods.create("ns", fine)), "");
  });
});
