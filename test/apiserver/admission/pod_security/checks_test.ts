/**
 * The Pod Security checks, with cases and expected reasons and details transcribed from
 * k8s.io/pod-security-admission 1.32's policy tests.
 */
import assert from "node:assert/strict";
import * as base from "../../../../apiserver/admission/pod_security/baseline_checks.ts";
import * as strict from "../../../../apiserver/admission/pod_security/restricted_checks.ts";
import type { CheckPod, Obj } from "../../../../apiserver/admission/pod_security/check_result.ts";

const sc = (name: string, securityContext?: Obj) =>
  securityContext ? { name, securityContext } : { name };

function expectForbidden(check: CheckPod, spec: Obj, reason: string, detail: string, meta = {}) {
  const r = check(meta, spec);
  assert.equal(r.allowed, false);
  assert.equal(r.reason, reason);
  assert.equal(r.detail, detail);
}

Deno.test("hostNamespaces() names every host namespace set", () => {
  expectForbidden(
    base.hostNamespaces,
    { hostNetwork: true, hostPID: true, hostIPC: true },
    "host namespaces",
    "hostNetwork=true, hostPID=true, hostIPC=true",
  );
  assert.equal(base.hostNamespaces({}, { hostNetwork: false }).allowed, true);
});

Deno.test("privileged() names the privileged containers", () => {
  expectForbidden(
    base.privileged,
    {
      containers: [
        sc("a"),
        sc("b", {}),
        sc("c", { privileged: false }),
        sc("d", { privileged: true }),
        sc("e", { privileged: true }),
      ],
    },
    "privileged",
    `containers "d", "e" must not set securityContext.privileged=true`,
  );
});

Deno.test("capabilitiesBaseline() lists the added non-default capabilities", () => {
  expectForbidden(
    base.capabilitiesBaseline,
    {
      containers: [
        sc("a", { capabilities: { add: ["FOO", "BAR"] } }),
        sc("b", { capabilities: { add: ["BAR", "BAZ"] } }),
        sc("c", { capabilities: { add: ["NET_BIND_SERVICE", "CHOWN"] } }),
      ],
    },
    "non-default capabilities",
    `containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add`,
  );
});

Deno.test("hostPathVolumes() and hostPorts() name volumes, containers and ports", () => {
  expectForbidden(
    base.hostPathVolumes,
    {
      volumes: [{ name: "a", hostPath: {} }, { name: "b", hostPath: {} }, {
        name: "c",
        emptyDir: {},
      }],
    },
    "hostPath volumes",
    `volumes "a", "b"`,
  );
  expectForbidden(
    base.hostPorts,
    {
      containers: [{ name: "a", ports: [{ hostPort: 0 }] }, {
        name: "b",
        ports: [{ hostPort: 0 }, { hostPort: 20 }],
      }],
    },
    "hostPort",
    `container "b" uses hostPort 20`,
  );
  expectForbidden(
    base.hostPorts,
    {
      containers: [
        { name: "a", ports: [{ hostPort: 0 }] },
        { name: "b", ports: [{ hostPort: 0 }, { hostPort: 10 }, { hostPort: 20 }] },
        { name: "c", ports: [{ hostPort: 0 }, { hostPort: 10 }, { hostPort: 30 }] },
      ],
    },
    "hostPort",
    `containers "b", "c" use hostPorts 10, 20, 30`,
  );
});

Deno.test("appArmorProfile() refuses Unconfined types and bad beta annotations", () => {
  expectForbidden(
    base.appArmorProfile,
    { securityContext: { appArmorProfile: { type: "Unconfined" } } },
    "forbidden AppArmor profile",
    `pod must not set AppArmor profile type to "Unconfined"`,
  );
  expectForbidden(
    base.appArmorProfile,
    { initContainers: [sc("bar", { appArmorProfile: { type: "Unconfined" } })] },
    "forbidden AppArmor profile",
    `container "bar" must not set AppArmor profile type to "Unconfined"`,
  );
  const prefix = "container.apparmor.security.beta.kubernetes.io/";
  expectForbidden(
    base.appArmorProfile,
    {},
    "forbidden AppArmor profiles",
    "annotations must not set AppArmor profile type to " + [
      `"${prefix}="bogus""`,
      `"${prefix}e="unconfined""`,
      `"${prefix}f="unknown""`,
    ].join(", "),
    {
      annotations: {
        [prefix]: "bogus",
        [`${prefix}a`]: "",
        [`${prefix}b`]: "runtime/default",
        [`${prefix}c`]: "localhost/",
        [`${prefix}d`]: "localhost/foo",
        [`${prefix}e`]: "unconfined",
        [`${prefix}f`]: "unknown",
      },
    },
  );
});

Deno.test("seLinuxOptions() lists bad types, users and roles of the pod and containers", () => {
  const check = base.seLinuxOptions(base.SELINUX_TYPES_1_31);
  expectForbidden(
    check,
    {
      securityContext: { seLinuxOptions: { type: "foo", user: "bar", role: "baz" } },
      containers: [
        sc("a", { seLinuxOptions: { type: "container_t" } }),
        sc("d", { seLinuxOptions: { type: "container_engine_t" } }),
        sc("e", { seLinuxOptions: { type: "bar" } }),
        sc("f", { seLinuxOptions: { user: "bar" } }),
        sc("g", { seLinuxOptions: { role: "baz" } }),
      ],
    },
    "seLinuxOptions",
    `pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set`,
  );
  expectForbidden(
    check,
    { securityContext: { seLinuxOptions: { role: "bad" } } },
    "seLinuxOptions",
    "pod set forbidden securityContext.seLinuxOptions: role may not be set",
  );
  const old = base.seLinuxOptions(base.SELINUX_TYPES_1_0);
  assert.equal(
    old({}, { containers: [sc("d", { seLinuxOptions: { type: "container_engine_t" } })] }).allowed,
    false,
  );
});

Deno.test("procMount(), sysctls() and windowsHostProcess() details", () => {
  expectForbidden(
    base.procMount,
    {
      containers: [
        sc("a"),
        sc("c", { procMount: "Default" }),
        sc("d", { procMount: "Unmasked" }),
        sc("e", { procMount: "other" }),
      ],
    },
    "procMount",
    `containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"`,
  );
  const sysctls = base.sysctls(base.SAFE_SYSCTLS[32]);
  expectForbidden(
    sysctls,
    { securityContext: { sysctls: [{ name: "a" }, { name: "b" }] } },
    "forbidden sysctls",
    "a, b",
  );
  assert.equal(
    sysctls({}, { securityContext: { sysctls: [{ name: "net.ipv4.tcp_rmem" }] } }).allowed,
    true,
  );
  expectForbidden(
    base.sysctls(base.SAFE_SYSCTLS[29]),
    { securityContext: { sysctls: [{ name: "net.ipv4.tcp_wmem" }] } },
    "forbidden sysctls",
    "net.ipv4.tcp_wmem",
  );
  expectForbidden(
    base.windowsHostProcess,
    {
      securityContext: { windowsOptions: { hostProcess: true } },
      containers: [
        sc("a"),
        sc("d", { windowsOptions: { hostProcess: false } }),
        sc("e", { windowsOptions: { hostProcess: true } }),
        sc("f", { windowsOptions: { hostProcess: true } }),
      ],
    },
    "hostProcess",
    `pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true`,
  );
});

Deno.test("seccomp baseline checks: the annotations before 1.19, the fields after", () => {
  const p = "container.seccomp.security.alpha.kubernetes.io/";
  expectForbidden(
    base.seccompBaseline_1_0,
    { containers: [{ name: "a" }, { name: "b" }] },
    "seccompProfile",
    `forbidden annotations ${p}a="unconfined", ${p}b="unknown", seccomp.security.alpha.kubernetes.io/pod="unconfined"`,
    {
      annotations: {
        "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
        [`${p}a`]: "unconfined",
        [`${p}b`]: "unknown",
      },
    },
  );
  expectForbidden(
    base.seccompBaseline_1_19,
    {
      securityContext: { seccompProfile: { type: "Unconfined" } },
      containers: [
        sc("a"),
        sc("b", { seccompProfile: { type: "RuntimeDefault" } }),
        sc("c", { seccompProfile: { type: "Unconfined" } }),
        sc("d", { seccompProfile: { type: "Unconfined" } }),
      ],
    },
    "seccompProfile",
    `pod and containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"`,
  );
});

Deno.test("allowPrivilegeEscalation() requires false, and the 1.25 form allows Windows pods", () => {
  const spec = {
    containers: [
      sc("a"),
      sc("b", {}),
      sc("c", { allowPrivilegeEscalation: true }),
      sc("d", { allowPrivilegeEscalation: false }),
    ],
  };
  expectForbidden(
    strict.allowPrivilegeEscalation,
    spec,
    "allowPrivilegeEscalation != false",
    `containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false`,
  );
  const windows = { ...spec, os: { name: "windows" } };
  assert.equal(strict.exceptWindows(strict.allowPrivilegeEscalation)({}, windows).allowed, true);
  assert.equal(strict.allowPrivilegeEscalation({}, windows).allowed, false);
});

Deno.test("capabilitiesRestricted() requires drop ALL and allows adding only NET_BIND_SERVICE", () => {
  expectForbidden(
    strict.capabilitiesRestricted,
    {
      containers: [
        sc("a", { capabilities: { add: ["FOO", "BAR"] } }),
        sc("b", { capabilities: { add: ["BAR", "BAZ"] } }),
        sc("c", { capabilities: { add: ["NET_BIND_SERVICE", "CHOWN"], drop: ["ALL", "FOO"] } }),
      ],
    },
    "unrestricted capabilities",
    `containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" must not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add`,
  );
  expectForbidden(
    strict.capabilitiesRestricted,
    { os: { name: "linux" }, containers: [{ name: "a" }] },
    "unrestricted capabilities",
    `container "a" must set securityContext.capabilities.drop=["ALL"]`,
  );
});

Deno.test("restrictedVolumes() names each bad volume's first restricted source", () => {
  const sources = [
    "hostPath",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "nfs",
    "iscsi",
    "glusterfs",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "fc",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "storageos",
  ];
  const allowed = [
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
  ];
  const volumes = [
    ...allowed.map((s, i) => ({ name: `a${i + 1}`, [s]: {} })),
    ...sources.map((s, i) => ({ name: `b${i + 1}`, [s]: {} })),
    { name: "c1" },
  ];
  const names = [...sources.map((_, i) => `"b${i + 1}"`), `"c1"`].join(", ");
  expectForbidden(
    strict.restrictedVolumes,
    { volumes },
    "restricted volume types",
    `volumes ${names} use restricted volume types ` +
      `"awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", ` +
      `"hostPath", "iscsi", "nfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "unknown", "vsphereVolume"`,
  );
});

Deno.test("runAsNonRoot() distinguishes explicit false from unset", () => {
  expectForbidden(
    strict.runAsNonRoot,
    { containers: [{ name: "a" }] },
    "runAsNonRoot != true",
    `pod or container "a" must set securityContext.runAsNonRoot=true`,
  );
  expectForbidden(
    strict.runAsNonRoot,
    { securityContext: { runAsNonRoot: false }, containers: [sc("a")] },
    "runAsNonRoot != true",
    "pod must not set securityContext.runAsNonRoot=false",
  );
  expectForbidden(
    strict.runAsNonRoot,
    {
      securityContext: { runAsNonRoot: true },
      containers: [
        sc("a"),
        sc("b", {}),
        sc("c", { runAsNonRoot: false }),
        sc("d", { runAsNonRoot: false }),
        sc("e", { runAsNonRoot: true }),
      ],
    },
    "runAsNonRoot != true",
    `containers "c", "d" must not set securityContext.runAsNonRoot=false`,
  );
  expectForbidden(
    strict.runAsNonRoot,
    { containers: [sc("a"), sc("b", {}), sc("d", { runAsNonRoot: true })] },
    "runAsNonRoot != true",
    `pod or containers "a", "b" must set securityContext.runAsNonRoot=true`,
  );
});

Deno.test("runAsUser() and seccompRestricted() details", () => {
  expectForbidden(
    strict.runAsUser,
    { securityContext: { runAsUser: 0 }, containers: [sc("a", { runAsUser: 1000 })] },
    "runAsUser=0",
    "pod must not set runAsUser=0",
  );
  expectForbidden(
    strict.runAsUser,
    {
      securityContext: { runAsUser: 1000 },
      containers: [sc("a"), sc("c", { runAsUser: 0 }), sc("d", { runAsUser: 0 })],
    },
    "runAsUser=0",
    `containers "c", "d" must not set runAsUser=0`,
  );
  expectForbidden(
    strict.seccompRestricted,
    { containers: [{ name: "a" }] },
    "seccompProfile",
    `pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
  );
  expectForbidden(
    strict.seccompRestricted,
    { securityContext: { seccompProfile: { type: "Unconfined" } } },
    "seccompProfile",
    `pod must not set securityContext.seccompProfile.type to "Unconfined"`,
  );
  expectForbidden(
    strict.seccompRestricted,
    { containers: [sc("a"), sc("b", {}), sc("c", { seccompProfile: { type: "RuntimeDefault" } })] },
    "seccompProfile",
    `pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
  );
});
