import assert from "node:assert/strict";
import { LeaderElector } from "../../../../apiserver/controllers/leader/leader_elector.ts";
import { leaderElectionFromFlags } from "../../../../apiserver/controllers/leader/leader_election_options.ts";
import { withRegistryHarness } from "../../../support/registry_harness.ts";

type Spec = {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  leaseTransitions?: number;
  acquireTime?: string;
  renewTime?: string;
};

Deno.test("LeaderElector: one leader; another takes over once the lease expires, or at once when released", async () => {
  await withRegistryHarness("leader_elector_", async (h) => {
    await h.store("", "v1", "namespaces").create("", { metadata: { name: "kube-system" } });
    const leases = h.store("coordination.k8s.io", "v1", "leases");
    let t = Date.UTC(2026, 0, 1);
    const log: string[] = [];
    const elector = (identity: string) =>
      new LeaderElector({
        leases: () => leases,
        namespace: "kube-system",
        name: "kube-controller-manager",
        identity,
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
        now: () => t,
        onStartedLeading: () => void log.push(`${identity} leads`),
        onStoppedLeading: () => void log.push(`${identity} stops`),
      });
    const a = elector("host_a");
    const b = elector("host_b");
    assert.equal(await a.tick(), true);
    assert.equal(await b.tick(), false);
    let lease = await leases.get("kube-system", "kube-controller-manager");
    let spec = lease.spec as Spec;
    assert.equal(spec.holderIdentity, "host_a");
    assert.equal(spec.leaseDurationSeconds, 15);
    assert.equal(spec.leaseTransitions, 0);
    assert.match(spec.renewTime!, /^2026-01-01T00:00:00\.000000Z$/);

    t += 10_000;
    assert.equal(await a.tick(), true, "the leader renews");
    assert.equal(await b.tick(), false, "a renewed lease is not taken");
    // A stops renewing (as if its process hung); B waits a full lease duration from when it
    // saw the last renewal.
    t += 14_000;
    assert.equal(await b.tick(), false);
    t += 2_000;
    assert.equal(await b.tick(), true, "expired: B takes over");
    spec = (await leases.get("kube-system", "kube-controller-manager")).spec as Spec;
    assert.equal(spec.holderIdentity, "host_b");
    assert.equal(spec.leaseTransitions, 1);
    // A wakes up: it cannot renew, and past its renew deadline it stops leading.
    assert.equal(await a.tick(), false);
    assert.deepEqual(log, ["host_a leads", "host_b leads", "host_a stops"]);

    // B stops: it releases the lease, and A acquires it at once.
    await b.stop();
    lease = await leases.get("kube-system", "kube-controller-manager");
    assert.equal((lease.spec as Spec).holderIdentity, undefined);
    assert.equal(await a.tick(), true);
    assert.equal(
      ((await leases.get("kube-system", "kube-controller-manager")).spec as Spec).leaseTransitions,
      2,
    );
    assert.deepEqual(log.slice(3), ["host_b stops", "host_a leads"]);
    await a.stop();
  });
});

Deno.test("leaderElectionFromFlags() reads kube-controller-manager's flags and checks their order", () => {
  const errors: string[] = [];
  const opts = leaderElectionFromFlags({}, errors);
  assert.deepEqual(errors, []);
  assert.equal(opts.enabled, true);
  assert.equal(opts.leaseDurationMs, 15_000);
  assert.equal(opts.renewDeadlineMs, 10_000);
  assert.equal(opts.retryPeriodMs, 2_000);
  assert.equal(opts.resourceName, "kube-controller-manager");
  assert.equal(opts.resourceNamespace, "kube-system");
  assert.match(opts.identity, /^.+_[0-9a-f-]{36}$/);
  const bad: string[] = [];
  leaderElectionFromFlags({
    "leader-elect": "maybe",
    "leader-elect-lease-duration": "5s",
    "leader-elect-renew-deadline": "10s",
  }, bad);
  assert.equal(bad.length, 2);
  assert.match(bad[0], /--leader-elect: must be true or false/);
  assert.match(bad[1], /lease-duration must be greater than/);
});
