import assert from "node:assert/strict";
import {
  collectParams,
  ParamError,
} from "../../../../apiserver/admission/policy/collect_params.ts";
import { apiVersionOf } from "../../../../apiserver/registry/generic/kind.ts";
import { withRegistryHarness } from "../../../support/registry_harness.ts";

Deno.test("collectParams() finds params by name or selector and reports misconfigurations", async () => {
  await withRegistryHarness("collect_params_", async (h) => {
    const cms = h.store("", "v1", "configmaps");
    await cms.create("ns1", { metadata: { name: "a", labels: { role: "p" } }, data: { k: "1" } });
    await cms.create("ns1", { metadata: { name: "b", labels: { role: "p" } } });
    await cms.create("ns2", { metadata: { name: "a" } });
    const lookup = (apiVersion: string, kind: string) =>
      [cms, h.store("", "v1", "namespaces")].find((s) =>
        apiVersionOf(s.def) === apiVersion && s.def.kind === kind
      );
    const cm = { apiVersion: "v1", kind: "ConfigMap" };
    assert.deepEqual(await collectParams(undefined, { name: "a" }, "ns1", lookup), [null]);
    assert.deepEqual(await collectParams(cm, undefined, "ns1", lookup), [null]);
    const byName = await collectParams(cm, { name: "a" }, "ns1", lookup);
    assert.deepEqual(byName.map((p) => p?.data), [{ k: "1" }]);
    const other = await collectParams(cm, { name: "a", namespace: "ns2" }, "ns1", lookup);
    assert.equal(other[0]?.metadata.namespace, "ns2");
    const all = await collectParams(
      cm,
      { selector: { matchLabels: { role: "p" } } },
      "ns1",
      lookup,
    );
    assert.deepEqual(all.map((p) => p?.metadata.name).sort(), ["a", "b"]);
    assert.deepEqual(await collectParams(cm, { name: "zz" }, "ns1", lookup), []);
    await assert.rejects(
      collectParams(cm, { name: "zz", parameterNotFoundAction: "Deny" }, "ns1", lookup),
      (e: Error) =>
        e instanceof ParamError &&
        e.message === "no params found for policy binding with `Deny` parameterNotFoundAction",
    );
    await assert.rejects(
      collectParams(cm, { name: "a" }, "", lookup),
      /cannot use namespaced paramRef in policy binding that matches cluster-scoped resources/,
    );
    const ns = { apiVersion: "v1", kind: "Namespace" };
    await assert.rejects(
      collectParams(ns, { name: "x", namespace: "y" }, "", lookup),
      /paramRef.namespace must not be provided for a cluster-scoped `paramKind`/,
    );
    await assert.rejects(
      collectParams({ apiVersion: "example.com/v1", kind: "Nope" }, { name: "x" }, "", lookup),
      /failed to find resource referenced by paramKind: 'example.com\/v1, Kind=Nope'/,
    );
  });
});
