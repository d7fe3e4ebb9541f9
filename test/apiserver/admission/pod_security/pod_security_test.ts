/**
 * The PodSecurity plugin over real stores: audit annotations for the audit mode, the enforce
 * policy annotation, ignored updates and subresources, ephemeral containers evaluated.
 */
import assert from "node:assert/strict";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { podSecurity } from "../../../../apiserver/admission/pod_security/pod_security.ts";
import {
  AdmissionChain,
  type AdmissionPlugin,
} from "../../../../apiserver/registry/generic/admission.ts";
import { Store } from "../../../../apiserver/registry/generic/store.ts";
import { namespaceKind } from "../../../../apiserver/registry/core/namespaces/strategy.ts";
import { podKind } from "../../../../apiserver/registry/core/pods/strategy.ts";
import { withTempStorage } from "../../../support/registry_harness.ts";

const P = "pod-security.kubernetes.io/";

Deno.test("podSecurity() records audit annotations and evaluates ephemeral containers", async () => {
  await withTempStorage("pod_security_plugin_", async ({ storage }) => {
    const seen: Record<string, string>[] = [];
    const recorder: AdmissionPlugin = {
      name: "recorder",
      validate: (a) => void (a.auditAnnotations && seen.push({ ...a.auditAnnotations })),
    };
    const stores: Record<string, Store> = {};
    const chain = new AdmissionChain([
      podSecurity({ lookup: (_g, _v, r) => stores[r] }),
      recorder,
    ]);
    stores.namespaces = new Store(namespaceKind, { storage, admission: chain });
    stores.pods = new Store(podKind, { storage, admission: chain });
    await stores.namespaces.create("", {
      metadata: {
        name: "ns",
        labels: { [`${P}audit`]: "restricted", [`${P}enforce`]: "baseline" },
      },
    });
    const pod = { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "nginx" }] } };
    const created = await stores.pods.create("ns", pod);
    const audit = seen.pop()!;
    assert.equal(audit[`${P}enforce-policy`], "baseline:latest");
    assert.match(
      audit[`${P}audit-violations`],
      /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "c" must set/,
    );

    // Adding a privileged ephemeral container through the subresource is refused.
    const ephemeral = {
      ...created,
      spec: {
        ...created.spec as object,
        ephemeralContainers: [{
          name: "debug",
          image: "busybox",
          securityContext: { privileged: true },
        }],
      },
    };
    await assert.rejects(
      stores.pods.update("ns", "p", ephemeral, { subresource: "ephemeralcontainers" }),
      (err: StatusError) =>
        err.code === 403 &&
        err.message ===
          `pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "debug" must not set securityContext.privileged=true)`,
    );
    // The status subresource and updates that change no image are not evaluated.
    seen.length = 0;
    await stores.pods.update("ns", "p", { ...created, status: { phase: "Running" } }, {
      subresource: "status",
    });
    const current = await stores.pods.get("ns", "p");
    await stores.pods.update("ns", "p", {
      ...current,
      metadata: { ...current.metadata, labels: { a: "b" } },
    });
    assert.deepEqual(seen, []);
  });
});
