import assert from "node:assert/strict";
import { parseControllers } from "../../../apiserver/controllers/controller_selection.ts";
import { parseServerOptions } from "../../../apiserver/options.ts";

Deno.test("parseControllers() turns on kube's defaults with *, leaving bootstrapsigner and tokencleaner off", () => {
  const errors: string[] = [];
  const s = parseControllers(undefined, errors);
  assert.deepEqual(errors, []);
  assert.ok(s.enabled("namespace-controller"));
  assert.ok(s.enabled("certificatesigningrequest-signing-controller"));
  assert.ok(!s.enabled("bootstrap-signer-controller"));
  assert.ok(!s.enabled("token-cleaner-controller"));
});

Deno.test("parseControllers() reads name, -name and aliases", () => {
  const errors: string[] = [];
  const s = parseControllers(
    "*,bootstrapsigner,token-cleaner-controller,-csrapproving,-deployment",
    errors,
  );
  assert.deepEqual(errors, []);
  assert.ok(s.enabled("bootstrap-signer-controller"));
  assert.ok(s.enabled("token-cleaner-controller"));
  assert.ok(!s.enabled("certificatesigningrequest-approving-controller"));
  const only = parseControllers("namespace", errors);
  assert.ok(only.enabled("namespace-controller"));
  assert.ok(!only.enabled("garbage-collector-controller"));
});

Deno.test("parseServerOptions() reports unknown controllers with the other option errors", () => {
  const parsed = parseServerOptions([
    "--controllers=*,nosuch",
    "--cluster-signing-duration=soon",
    "--secure-port=99999",
  ]);
  assert.equal(parsed.ok, false);
  if (parsed.ok) return;
  assert.ok(
    parsed.errors.some((e) => e.includes(`"nosuch" is not in the list of known controllers`)),
  );
  assert.ok(parsed.errors.some((e) => e.startsWith("--cluster-signing-duration:")));
  assert.ok(parsed.errors.some((e) => e.startsWith("--secure-port:")));
});

Deno.test("parseServerOptions() reads --auto-approve-node-serving and the signing duration", () => {
  const parsed = parseServerOptions([
    "--auto-approve-node-serving",
    "--cluster-signing-duration=2m",
  ]);
  assert.ok(parsed.ok);
  if (!parsed.ok) return;
  assert.equal(parsed.options.controllers?.autoApproveNodeServing, true);
  assert.equal(parsed.options.controllers?.clusterSigningDurationMs, 120_000);
});
