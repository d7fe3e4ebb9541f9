import assert from "node:assert/strict";
import {
  limitRequestRatioConstraint,
  maxConstraint,
  maxRequestConstraint,
  minConstraint,
  resourcesOf,
} from "../../../apiserver/admission/limit_constraints.ts";
import { Quantity } from "../../../shared/api/quantity.ts";

const q = (s: string) => Quantity.parse(s);

Deno.test("minConstraint() and maxConstraint() give kube's messages", () => {
  const none = resourcesOf(undefined);
  assert.equal(
    minConstraint("Container", "cpu", q("100m"), none, none),
    "minimum cpu usage per Container is 100m.  No request is specified",
  );
  assert.equal(
    minConstraint("Container", "cpu", q("100m"), resourcesOf({ cpu: "50m" }), none),
    "minimum cpu usage per Container is 100m, but request is 50m",
  );
  assert.equal(
    minConstraint("Container", "cpu", q("100m"), resourcesOf({ cpu: "0.1" }), none),
    undefined,
  );
  assert.equal(
    maxConstraint("Pod", "memory", q("1Gi"), none, none),
    "maximum memory usage per Pod is 1Gi.  No limit is specified",
  );
  assert.equal(
    maxConstraint("Pod", "memory", q("1Gi"), none, resourcesOf({ memory: "2Gi" })),
    "maximum memory usage per Pod is 1Gi, but limit is 2Gi",
  );
  assert.equal(
    maxRequestConstraint(
      "PersistentVolumeClaim",
      "storage",
      q("1Gi"),
      resourcesOf({ storage: "5Gi" }),
    ),
    "maximum storage usage per PersistentVolumeClaim is 1Gi, but request is 5Gi",
  );
});

Deno.test("limitRequestRatioConstraint() compares limit / request with the ratio", () => {
  const req = resourcesOf({ cpu: "100m" });
  assert.equal(
    limitRequestRatioConstraint("Container", "cpu", q("2"), req, resourcesOf({ cpu: "200m" })),
    undefined,
  );
  assert.equal(
    limitRequestRatioConstraint("Container", "cpu", q("2"), req, resourcesOf({ cpu: "300m" })),
    "cpu max limit to request ratio per Container is 2, but provided ratio is 3.000000",
  );
  assert.equal(
    limitRequestRatioConstraint("Container", "cpu", q("2"), resourcesOf({}), req),
    "cpu max limit to request ratio per Container is 2, but no request is specified or request is 0",
  );
});
