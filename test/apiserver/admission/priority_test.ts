import assert from "node:assert/strict";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { priorityAdmission } from "../../../apiserver/admission/priority.ts";
import { AdmissionChain } from "../../../apiserver/registry/generic/admission.ts";
import { Store } from "../../../apiserver/registry/generic/store.ts";
import { priorityClassKind } from "../../../apiserver/registry/scheduling/priorityclasses/strategy.ts";
import { podKind } from "../../../apiserver/registry/core/pods/strategy.ts";
import { withTempStorage } from "../../support/registry_harness.ts";

const pc = (name: string, value: number, globalDefault = false) => ({
  apiVersion: "scheduling.k8s.io/v1",
  kind: "PriorityClass",
  metadata: { name },
  value,
  globalDefault,
});

const pod = (name: string, priorityClassName?: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "c", image: "busybox" }], priorityClassName },
});

// deno-lint-ignore no-explicit-any
const specOf = (o: object): any => (o as { spec?: unknown }).spec;

async function code(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 201;
  } catch (err) {
    if (err instanceof StatusError) return err.code;
    throw err;
  }
}

Deno.test("priorityAdmission() allows one global default and resolves pods' priority", async () => {
  await withTempStorage("priority_admission_", async ({ storage }) => {
    let classes: Store | undefined = undefined;
    const admission = new AdmissionChain([priorityAdmission(() => classes)]);
    classes = new Store(priorityClassKind, { storage, admission });
    const pods = new Store(podKind, { storage, admission });
    const none = await pods.create("default", pod("none"));
    assert.deepEqual([specOf(none).priority, specOf(none).priorityClassName], [0, undefined]);
    await classes.create("", pc("first", 100, true));
    assert.equal(await code(classes.create("", pc("second", 200, true))), 403);
    await classes.create("", pc("third", 300));
    assert.equal(
      await code(classes.update("", "third", { ...pc("third", 300, true) })),
      403,
      "another class may not become the default",
    );
    const again = await classes.get("", "first");
    assert.equal(await code(classes.update("", "first", { ...again, description: "d" })), 201);
    const defaulted = await pods.create("default", pod("defaulted"));
    assert.deepEqual([specOf(defaulted).priority, specOf(defaulted).priorityClassName], [
      100,
      "first",
    ]);
    const named = await pods.create("default", pod("named", "third"));
    assert.equal(specOf(named).priority, 300);
    assert.equal(await code(pods.create("default", pod("missing", "nope"))), 403);
  });
});
