import assert from "node:assert/strict";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { serviceAccountAdmission } from "../../../apiserver/admission/service_account.ts";
import { AdmissionChain } from "../../../apiserver/registry/generic/admission.ts";
import { Store } from "../../../apiserver/registry/generic/store.ts";
import { serviceAccountKind } from "../../../apiserver/registry/core/serviceaccounts/strategy.ts";
import { podKind } from "../../../apiserver/registry/core/pods/strategy.ts";
import { withTempStorage } from "../../support/registry_harness.ts";

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { containers: [{ name: "c", image: "busybox" }], ...spec },
});

// deno-lint-ignore no-explicit-any
const specOf = (o: object): any => (o as { spec?: unknown }).spec;

Deno.test("serviceAccountAdmission() waits a little for the default account, then refuses", async () => {
  await withTempStorage("sa_admission_", async ({ storage }) => {
    const accounts = new Store(serviceAccountKind, { storage });
    let tries = 0;
    const plugin = serviceAccountAdmission(() => accounts, {
      defaultAttempts: 3,
      retryMs: () => (tries++, 1),
    });
    const pods = new Store(podKind, { storage, admission: new AdmissionChain([plugin]) });
    await assert.rejects(
      () => pods.create("ns", pod("p")),
      (err: unknown) =>
        err instanceof StatusError && err.code === 403 &&
        err.message ===
          'pods "p" is forbidden: error looking up service account ns/default: serviceaccount "default" not found',
    );
    assert.equal(tries, 2, "three attempts, two pauses");
    await accounts.create("ns", { metadata: { name: "default" } });
    const made = await pods.create("ns", pod("p"));
    assert.equal(specOf(made).serviceAccountName, "default");
    assert.equal(specOf(made).volumes.length, 1);
    // A dry run admits the same way.
    const dry = await pods.create("ns", pod("q"), { dryRun: true });
    assert.match(specOf(dry).volumes[0].name, /^kube-api-access-/);
  });
});

Deno.test("serviceAccountAdmission() keeps an existing mount and token volume", async () => {
  await withTempStorage("sa_admission_mounts_", async ({ storage }) => {
    const accounts = new Store(serviceAccountKind, { storage });
    await accounts.create("ns", { metadata: { name: "default" } });
    const plugin = serviceAccountAdmission(() => accounts);
    const pods = new Store(podKind, { storage, admission: new AdmissionChain([plugin]) });
    const made = await pods.create(
      "ns",
      pod("p", {
        containers: [
          {
            name: "own",
            image: "b",
            volumeMounts: [{
              name: "x",
              mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
            }],
          },
          { name: "plain", image: "b" },
        ],
        volumes: [{ name: "x", emptyDir: {} }],
      }),
    );
    const spec = specOf(made);
    assert.equal(spec.containers[0].volumeMounts.length, 1);
    assert.equal(spec.containers[1].volumeMounts.length, 1);
    assert.equal(spec.volumes.length, 2);
  });
});
