import assert from "node:assert/strict";
import {
  AdmissionChain,
  type AdmissionObserver,
  type AdmissionPlugin,
} from "../../../../apiserver/registry/generic/admission.ts";
import { attrs } from "../../../support/admission_attrs.ts";

Deno.test("AdmissionChain.run() runs every mutating phase, the check, then every validating phase", async () => {
  const order: string[] = [];
  const plugin = (name: string): AdmissionPlugin => ({
    name,
    admit: () => void order.push(`admit ${name}`),
    validate: () => void order.push(`validate ${name}`),
  });
  const chain = new AdmissionChain([plugin("a"), {
    name: "v",
    validate: () => void order.push("validate v"),
  }, plugin("b")]);
  const a = attrs("configmaps", "CREATE", { metadata: { name: "x" } });
  await chain.run(a, () => void order.push("check"));
  assert.deepEqual(order, [
    "admit a",
    "admit b",
    "check",
    "validate a",
    "validate v",
    "validate b",
  ]);
  assert.match(a.uid!, /^[0-9a-f-]{36}$/);
});

Deno.test("AdmissionChain.run() stops at a rejection and reports the metrics", async () => {
  const steps: string[] = [];
  const observer: AdmissionObserver = {
    step: (type, op, rejected) => void steps.push(`step ${type} ${op} ${rejected}`),
    plugin: (name, type, op, rejected) => void steps.push(`${name} ${type} ${op} ${rejected}`),
  };
  let checked = false;
  const chain = new AdmissionChain([
    { name: "ok", admit() {} },
    {
      name: "no",
      admit: () => {
        throw new Error("no");
      },
    },
    { name: "never", admit: () => assert.fail("ran after a rejection") },
  ], observer);
  await assert.rejects(
    () =>
      chain.run(attrs("pods", "UPDATE", { metadata: { name: "x" } }), () => void (checked = true)),
    /no/,
  );
  assert.equal(checked, false);
  assert.deepEqual(steps, [
    "ok admit UPDATE false",
    "no admit UPDATE true",
    "step admit UPDATE true",
  ]);
});
