import assert from "node:assert/strict";
import {
  reviewVersionOf,
  verifyAdmissionResponse,
} from "../../../../apiserver/admission/webhook/admission_review.ts";

const v1 = (response: unknown) => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  response,
});

Deno.test("reviewVersionOf() picks the first known AdmissionReview version", () => {
  assert.equal(reviewVersionOf(["v2", "v1beta1", "v1"]), "v1beta1");
  assert.equal(reviewVersionOf(["v3"]), undefined);
});

Deno.test("verifyAdmissionResponse() checks a v1 answer with kube's messages", () => {
  const bad = (answer: unknown, mutating: boolean, message: string) =>
    assert.throws(() => verifyAdmissionResponse(answer, "u1", "v1", mutating), { message });
  bad({}, true, "webhook response was absent");
  bad(v1({ uid: "u2", allowed: true }), true, 'expected response.uid="u1", got "u2"');
  bad(
    { apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview", response: { uid: "u1" } },
    true,
    "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview",
  );
  bad(
    v1({ uid: "u1", allowed: true, patch: btoa("[]") }),
    true,
    "webhook returned response.patch but not response.patchType",
  );
  bad(
    v1({ uid: "u1", allowed: true, patchType: "JSONPatch" }),
    true,
    "webhook returned response.patchType but not response.patch",
  );
  bad(
    v1({ uid: "u1", allowed: true, patch: btoa("[]"), patchType: "JSONPatch" }),
    false,
    "validating webhook may not return response.patch",
  );
  const ops = [{ op: "add", path: "/x", value: 1 }];
  const ok = verifyAdmissionResponse(
    v1({
      uid: "u1",
      allowed: true,
      patch: btoa(JSON.stringify(ops)),
      patchType: "JSONPatch",
      warnings: ["w"],
      auditAnnotations: { k: "v" },
    }),
    "u1",
    "v1",
    true,
  );
  assert.deepEqual(ok, {
    allowed: true,
    patch: ops,
    result: undefined,
    warnings: ["w"],
    auditAnnotations: { k: "v" },
  });
});

Deno.test("verifyAdmissionResponse() takes a v1beta1 answer without uid or patchType", () => {
  const ops = [{ op: "remove", path: "/x" }];
  const got = verifyAdmissionResponse(
    {
      response: {
        allowed: false,
        patch: btoa(JSON.stringify(ops)),
        status: { code: 409, message: "taken" },
      },
    },
    "u1",
    "v1beta1",
    true,
  );
  assert.equal(got.allowed, false);
  assert.deepEqual(got.result, { code: 409, message: "taken" });
  assert.deepEqual(got.patch, ops);
});
