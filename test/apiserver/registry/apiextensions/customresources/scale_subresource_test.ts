import assert from "node:assert/strict";
import {
  customResourceScale,
  scaleOfCustomResource,
  validateScaleFields,
} from "../../../../../apiserver/registry/apiextensions/customresources/scale_subresource.ts";
import { StatusError } from "../../../../../shared/errors/status_error.ts";

const SCALE = {
  specReplicasPath: ".spec.replicas",
  statusReplicasPath: ".status.replicas",
  labelSelectorPath: ".status.selector",
};

Deno.test("scaleOfCustomResource() reads the declared paths (0 when absent)", () => {
  const s = scaleOfCustomResource({ metadata: { name: "a", uid: "u" }, spec: {} }, SCALE);
  assert.deepEqual(s.spec, {});
  assert.deepEqual(s.status, { replicas: 0 });
  const t = scaleOfCustomResource({
    metadata: { name: "a" },
    spec: { replicas: 2 },
    status: { replicas: 1, selector: "a=b" },
  }, SCALE);
  assert.deepEqual([t.spec, t.status], [{ replicas: 2 }, { replicas: 1, selector: "a=b" }]);
});

Deno.test("scaleOfCustomResource() answers 500 for a mistyped replicas field", () => {
  assert.throws(
    () => scaleOfCustomResource({ metadata: {}, spec: { replicas: "2" } }, SCALE),
    (e: unknown) =>
      e instanceof StatusError && e.code === 500 &&
      /\.spec\.replicas accessor error: 2 is of the type string, expected int64/.test(
        e.status.message ?? "",
      ),
  );
});

Deno.test("customResourceScale() update sets the spec replicas path only", () => {
  const sub = customResourceScale(SCALE);
  const next = sub.update!({ metadata: {}, spec: { replicas: 4 } }, {
    metadata: { name: "a" },
    spec: { other: 1 },
  });
  assert.deepEqual(next.spec, { other: 1, replicas: 4 });
  assert.throws(() => sub.update!({ metadata: {}, spec: { replicas: -1 } }, { metadata: {} }));
});

Deno.test("validateScaleFields() checks replicas and the selector as kube's validator", () => {
  const errs = validateScaleFields({
    metadata: {},
    spec: { replicas: -1 },
    status: { replicas: 3_000_000_000, selector: 5 },
  }, SCALE);
  assert.deepEqual(errs.map((e) => [e.field, e.detail]), [
    [".spec.replicas", "should be a non-negative integer"],
    [".status.replicas", "should be less than or equal to 2147483647"],
    [
      ".status.selector",
      ".status.selector accessor error: 5 is of the type int64, expected string",
    ],
  ]);
});
