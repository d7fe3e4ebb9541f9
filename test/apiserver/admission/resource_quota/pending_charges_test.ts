/** PendingCharges: a charge holds its namespace until a later write of its object is seen. */
import assert from "node:assert/strict";
import {
  PENDING_EXPIRY_MS,
  PendingCharges,
} from "../../../../apiserver/admission/resource_quota/pending_charges.ts";

Deno.test("PendingCharges settles a charge on a later write of its object, or expires it", () => {
  const p = new PendingCharges();
  const entry = p.add("ns", "", "pods", "a");
  assert.equal(p.hasPending("ns"), true);
  p.charged(entry, 10);
  p.observe("/registry/core/pods/ns/a", 9);
  p.observe("/registry/core/pods/ns/b", 11);
  p.observe("/registry/core/pods/other/a", 11);
  assert.equal(p.hasPending("ns"), true, "only a later write of the same object settles it");
  p.observe("/registry/core/pods/ns/a", 11);
  assert.equal(p.hasPending("ns"), false);

  const cancelled = p.add("ns", "apps", "deployments", "d");
  p.cancel("ns", cancelled);
  assert.equal(p.hasPending("ns"), false);

  p.charged(p.add("ns", "apps", "deployments", "d"), 5);
  p.observe("/registry/apps/deployments/ns/d", 6);
  assert.equal(p.hasPending("ns"), false);

  p.add("ns", "", "configmaps", "lost");
  assert.equal(p.hasPending("ns", Date.now() + PENDING_EXPIRY_MS + 1), false);
});
