import assert from "node:assert/strict";
import { compareKubeAwareVersions } from "../../../apiserver/http/version_priority.ts";

Deno.test("compareKubeAwareVersions() orders versions as kube's discovery", () => {
  const versions = ["foo10", "v1", "v11alpha2", "v10", "v3beta1", "v2", "v12alpha1", "v10beta3"];
  versions.push("foo1", "v11beta2");
  assert.deepEqual(versions.sort(compareKubeAwareVersions), [
    "v10",
    "v2",
    "v1",
    "v11beta2",
    "v10beta3",
    "v3beta1",
    "v12alpha1",
    "v11alpha2",
    "foo1",
    "foo10",
  ]);
});
