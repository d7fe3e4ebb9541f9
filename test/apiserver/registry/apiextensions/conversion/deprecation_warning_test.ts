import assert from "node:assert/strict";
import {
  compareKubeAwareVersions,
  crdDeprecationWarning,
} from "../../../../../apiserver/registry/apiextensions/conversion/deprecation_warning.ts";
import type { CustomResourceDefinitionSpec } from "../../../../../shared/api/apiextensions/v1/types.ts";

function spec(versions: CustomResourceDefinitionSpec["versions"]): CustomResourceDefinitionSpec {
  return {
    group: "example.com",
    names: { plural: "widgets", kind: "Widget" },
    scope: "Namespaced",
    versions,
  };
}

Deno.test("compareKubeAwareVersions() orders versions as kube does", () => {
  const sorted = ["foo", "v1alpha1", "v2", "v1beta2", "v1", "v1beta1", "bar", "v10", "v11alpha2"]
    .sort((a, b) => compareKubeAwareVersions(b, a));
  assert.deepEqual(sorted, [
    "v10",
    "v2",
    "v1",
    "v1beta2",
    "v1beta1",
    "v11alpha2",
    "v1alpha1",
    "bar",
    "foo",
  ]);
});

Deno.test("crdDeprecationWarning() words a deprecated version's warning as kube does", () => {
  const v = (name: string, extra: object = {}) => ({
    name,
    served: true,
    storage: name === "v1",
    ...extra,
  });
  assert.equal(crdDeprecationWarning(spec([v("v1")]), "v1"), undefined);
  assert.equal(
    crdDeprecationWarning(spec([v("v1beta1", { deprecated: true })]), "v1beta1"),
    "example.com/v1beta1 Widget is deprecated",
  );
  assert.equal(
    crdDeprecationWarning(
      spec([
        v("v1alpha1", { deprecated: true }),
        v("v1beta1"),
        v("v1"),
        v("v2", { served: false }),
      ]),
      "v1alpha1",
    ),
    "example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget",
  );
  // Older or deprecated versions are not suggested.
  assert.equal(
    crdDeprecationWarning(
      spec([v("v1"), v("v2", { deprecated: true }), v("v3", { deprecated: true })]),
      "v2",
    ),
    "example.com/v2 Widget is deprecated",
  );
  assert.equal(
    crdDeprecationWarning(
      spec([v("v1", { deprecated: true, deprecationWarning: "use v2 now" })]),
      "v1",
    ),
    "use v2 now",
  );
});
