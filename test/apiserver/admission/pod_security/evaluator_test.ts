/** The Pod Security evaluator (check order, versions, overrides) and the namespace policy. */
import assert from "node:assert/strict";
import {
  evaluatePod,
  forbiddenDetail,
} from "../../../../apiserver/admission/pod_security/evaluator.ts";
import {
  LATEST,
  levelVersionString,
  policyToEvaluate,
  v1,
} from "../../../../apiserver/admission/pod_security/policy.ts";
import { evaluatePodsInNamespace } from "../../../../apiserver/admission/pod_security/namespace_check.ts";

const privilegedSpec = {
  containers: [{ name: "x", image: "nginx", securityContext: { privileged: true } }],
};

Deno.test("evaluatePod() at restricted:latest gives kube's message for a privileged pod", () => {
  const r = evaluatePod({ level: "restricted", version: LATEST }, {}, privilegedSpec);
  assert.equal(
    forbiddenDetail(r),
    `privileged (container "x" must not set securityContext.privileged=true), ` +
      `allowPrivilegeEscalation != false (container "x" must set securityContext.allowPrivilegeEscalation=false), ` +
      `unrestricted capabilities (container "x" must set securityContext.capabilities.drop=["ALL"]), ` +
      `runAsNonRoot != true (pod or container "x" must set securityContext.runAsNonRoot=true), ` +
      `seccompProfile (pod or container "x" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`,
  );
});

Deno.test("evaluatePod() runs baseline checks only at baseline, none at privileged", () => {
  assert.deepEqual(
    evaluatePod({ level: "baseline", version: LATEST }, {}, privilegedSpec).reasons,
    ["privileged"],
  );
  assert.equal(
    evaluatePod({ level: "privileged", version: LATEST }, {}, privilegedSpec).allowed,
    true,
  );
  const good = {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
    containers: [{
      name: "a",
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
    }],
  };
  assert.equal(evaluatePod({ level: "restricted", version: LATEST }, {}, good).allowed, true);
});

Deno.test("evaluatePod() restricted overrides the baseline capabilities, hostPath and seccomp checks", () => {
  const spec = {
    volumes: [{ name: "v", hostPath: { path: "/" } }],
    securityContext: { runAsNonRoot: true, seccompProfile: { type: "Unconfined" } },
    containers: [{
      name: "a",
      securityContext: {
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"], add: ["SYS_ADMIN"] },
      },
    }],
  };
  assert.deepEqual(evaluatePod({ level: "restricted", version: LATEST }, {}, spec).reasons, [
    "unrestricted capabilities",
    "restricted volume types",
    "seccompProfile",
  ]);
  assert.deepEqual(evaluatePod({ level: "baseline", version: LATEST }, {}, spec).reasons, [
    "non-default capabilities",
    "hostPath volumes",
    "seccompProfile",
  ]);
  // Before 1.22 restricted has no capabilities_restricted check, so the baseline one runs.
  assert.deepEqual(evaluatePod({ level: "restricted", version: v1(21) }, {}, spec).reasons, [
    "non-default capabilities",
    "restricted volume types",
    "seccompProfile",
  ]);
});

Deno.test("evaluatePod() versions: Windows pods pass the 1.25 restricted forms, sysctls by version", () => {
  const windows = {
    os: { name: "windows" },
    securityContext: { runAsNonRoot: true },
    containers: [{ name: "a" }],
  };
  assert.equal(evaluatePod({ level: "restricted", version: LATEST }, {}, windows).allowed, true);
  assert.deepEqual(evaluatePod({ level: "restricted", version: v1(24) }, {}, windows).reasons, [
    "allowPrivilegeEscalation != false",
    "unrestricted capabilities",
    "seccompProfile",
  ]);
  const rmem = { securityContext: { sysctls: [{ name: "net.ipv4.tcp_rmem" }] } };
  assert.equal(evaluatePod({ level: "baseline", version: v1(31) }, {}, rmem).allowed, false);
  assert.equal(evaluatePod({ level: "baseline", version: v1(32) }, {}, rmem).allowed, true);
  assert.equal(evaluatePod({ level: "baseline", version: v1(40) }, {}, rmem).allowed, true);
});

Deno.test("policyToEvaluate() reads the labels, fails closed for enforce and defaults warn", () => {
  const p = "pod-security.kubernetes.io/";
  const { policy, errors } = policyToEvaluate({
    [`${p}enforce`]: "baseline",
    [`${p}enforce-version`]: "v1.25",
  });
  assert.deepEqual(errors, []);
  assert.equal(levelVersionString(policy.enforce), "baseline:v1.25");
  assert.equal(levelVersionString(policy.warn), "baseline:v1.25");
  assert.equal(levelVersionString(policy.audit), "privileged:latest");
  const bad = policyToEvaluate({
    [`${p}enforce`]: "bogus",
    [`${p}warn`]: "x",
    [`${p}audit-version`]: "1.2",
  });
  assert.equal(levelVersionString(bad.policy.enforce), "restricted:latest");
  assert.equal(bad.policy.warn.level, "privileged");
  assert.deepEqual(bad.errors.map((e) => [e.field, e.detail]), [
    [`metadata.labels[${p}enforce]`, "must be one of privileged, baseline, restricted"],
    [`metadata.labels[${p}audit-version]`, `must be "latest" or "v1.x"`],
    [`metadata.labels[${p}warn]`, "must be one of privileged, baseline, restricted"],
  ]);
  assert.equal(policyToEvaluate({ [`${p}enforce-version`]: "v1.01" }).errors.length, 1);
});

Deno.test("evaluatePodsInNamespace() groups pods by reasons and counts the others", async () => {
  const pod = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec });
  const hostNet = { hostNetwork: true, containers: [{ name: "c" }] };
  const pods = [
    pod("b", hostNet),
    pod("a", hostNet),
    pod("c", hostNet),
    pod("d", privilegedSpec),
    pod("ok", { containers: [{ name: "c" }] }),
  ];
  const warnings = await evaluatePodsInNamespace(
    "ns",
    { level: "baseline", version: LATEST },
    () => Promise.resolve(pods),
  );
  assert.deepEqual(warnings, [
    `existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"`,
    "a (and 2 other pods): host namespaces",
    "d: privileged",
  ]);
});
