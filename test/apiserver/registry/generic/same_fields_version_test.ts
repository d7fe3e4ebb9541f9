import assert from "node:assert/strict";
import { sameFieldsVersion } from "../../../../apiserver/registry/generic/same_fields_version.ts";
import { volumeAttributesClassKind } from "../../../../apiserver/registry/storage/volumeattributesclasses/strategy.ts";

Deno.test("sameFieldsVersion() serves the stored kind at another version, converting the apiVersion only", async () => {
  const served = sameFieldsVersion(volumeAttributesClassKind, "v1alpha1");
  assert.equal(served.version, "v1alpha1");
  assert.equal(served.plural, "volumeattributesclasses");
  assert.equal(served.servedFrom?.storage, volumeAttributesClassKind);
  const obj = {
    apiVersion: "storage.k8s.io/v1alpha1",
    kind: "VolumeAttributesClass",
    metadata: { name: "gold" },
    driverName: "csi.example.com",
    parameters: { iops: "5000" },
  };
  const stored = await served.servedFrom!.toStorage(obj);
  assert.deepEqual(stored, { ...obj, apiVersion: "storage.k8s.io/v1beta1" });
  assert.equal(obj.apiVersion, "storage.k8s.io/v1alpha1", "the input is not changed");
  assert.deepEqual(await served.servedFrom!.fromStorage(stored), obj);
  assert.equal(served.strategy.tableColumns, volumeAttributesClassKind.strategy.tableColumns);
  assert.deepEqual(served.strategy.validate(obj), []);
});
