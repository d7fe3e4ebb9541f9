import assert from "node:assert/strict";
import { Store } from "../../../../apiserver/registry/generic/store.ts";
import { priorityClassKind } from "../../../../apiserver/registry/scheduling/priorityclasses/strategy.ts";
import {
  ensureSystemPriorityClasses,
  SYSTEM_PRIORITY_CLASSES,
} from "../../../../apiserver/registry/scheduling/priorityclasses/system_priority_classes.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { withTempStorage } from "../../../support/registry_harness.ts";

Deno.test("ensureSystemPriorityClasses() creates the missing system classes once", async () => {
  await withTempStorage("system_priority_classes_", async ({ storage }) => {
    const store = new Store(priorityClassKind, { storage });
    await ensureSystemPriorityClasses(store);
    const first = await store.get("", "system-node-critical");
    assert.equal(first.value, 2000001000);
    await ensureSystemPriorityClasses(store);
    const again = await store.get("", "system-node-critical");
    assert.equal(again.metadata.resourceVersion, first.metadata.resourceVersion);
    for (const c of SYSTEM_PRIORITY_CLASSES) {
      await assert.rejects(
        store.delete("", c.name),
        (err) => err instanceof StatusError && err.code === 403,
      );
    }
    const list = await store.list("", { plan: { mode: "latest" } });
    assert.equal(list.items.length, 2);
  });
});
