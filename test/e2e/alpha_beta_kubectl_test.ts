/**
 * The alpha and beta versions with the real kubectl: enabled with `--runtime-config`, kubectl
 * creates and reads them (`kubectl get validatingadmissionpolicies.v1beta1.admissionregistration.k8s.io`,
 * short names, `api-resources`, `explain`); a policy written at v1beta1 is enforced; after a
 * restart without them kubectl no longer finds those versions while the objects stay readable
 * at v1. Skips where kubectl is absent.
 */
import assert from "node:assert/strict";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer } from "../support/test_server.ts";

const ENABLE = "--runtime-config=admissionregistration.k8s.io/v1beta1=true," +
  "admissionregistration.k8s.io/v1alpha1=true,resource.k8s.io/v1beta1=true," +
  "storage.k8s.io/v1beta1=true,coordination.k8s.io/v1alpha2=true";

const MANIFEST = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-bad-name
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  validations:
  - expression: "object.metadata.name != 'bad'"
    message: "bad is a bad name"
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-bad-name
spec:
  policyName: no-bad-name
  validationActions: [Deny]
---
apiVersion: storage.k8s.io/v1beta1
kind: VolumeAttributesClass
metadata:
  name: gold
driverName: csi.example.com
parameters:
  iops: "5000"
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata:
  name: node-1-gpus
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool:
    name: node-1
    generation: 1
    resourceSliceCount: 1
  devices:
  - name: gpu-0
    basic:
      capacity:
        memory:
          value: 8Gi
---
apiVersion: coordination.k8s.io/v1alpha2
kind: LeaseCandidate
metadata:
  name: scheduler-a
  namespace: default
spec:
  leaseName: kube-scheduler
  binaryVersion: 1.32.0
  emulationVersion: 1.32.0
  strategy: OldestEmulationVersion
`;

Deno.test({
  name: "kubectl reads and writes the versions --runtime-config enables, and loses them after",
  ignore: skipWithoutKubectl("the alpha/beta kubectl tests"),
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "alpha-beta-kubectl-" });
    try {
      let s = await startTestServer([ENABLE], { dir, keepDir: true });
      try {
        const k = kubectlFor(s);
        const created = ok(await kubectl(k, ["create", "-f", "-"], MANIFEST));
        assert.match(
          created,
          /validatingadmissionpolicy.admissionregistration.k8s.io\/no-bad-name created/,
        );
        assert.match(created, /volumeattributesclass.storage.k8s.io\/gold created/);
        assert.match(created, /resourceslice.resource.k8s.io\/node-1-gpus created/);
        assert.match(created, /leasecandidate.coordination.k8s.io\/scheduler-a created/);
        const beta = ok(
          await kubectl(k, [
            "get",
            "validatingadmissionpolicies.v1beta1.admissionregistration.k8s.io",
          ]),
        );
        assert.match(beta, /NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE/);
        assert.match(beta, /no-bad-name\s+1\s+<unset>/);
        const binding = await kubectl(k, [
          "get",
          "validatingadmissionpolicybindings.v1beta1.admissionregistration.k8s.io",
          "-o",
          "jsonpath={.items[0].apiVersion}",
        ]);
        assert.equal(ok(binding), "admissionregistration.k8s.io/v1beta1");
        assert.match(
          binding.stderr,
          /Warning: admissionregistration\.k8s\.io\/v1beta1 ValidatingAdmissionPolicyBinding is deprecated in v1\.31\+, unavailable in v1\.34\+/,
        );
        assert.match(ok(await kubectl(k, ["get", "vac"])), /gold\s+csi\.example\.com/);
        assert.match(
          ok(await kubectl(k, ["get", "resourceslices"])),
          /node-1-gpus\s+node-1\s+gpu\.example\.com\s+node-1/,
        );
        assert.match(
          ok(await kubectl(k, ["get", "leasecandidates"])),
          /scheduler-a\s+kube-scheduler\s+1\.32\.0\s+1\.32\.0/,
        );
        const resources = ok(await kubectl(k, ["api-resources", "--api-group=resource.k8s.io"]));
        for (
          const r of ["deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices"]
        ) {
          assert.match(resources, new RegExp(`${r}\\s+resource.k8s.io/v1beta1`), resources);
        }
        const explained = ok(await kubectl(k, ["explain", "resourceslices.spec.pool"]));
        assert.match(explained, /resourceSliceCount/);
        const refused = await kubectl(k, ["create", "configmap", "bad"]);
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /bad is a bad name/);
      } finally {
        await s.close();
      }

      s = await startTestServer([], { dir, keepDir: true });
      try {
        const k = kubectlFor(s);
        const gone = await kubectl(k, [
          "get",
          "validatingadmissionpolicies.v1beta1.admissionregistration.k8s.io",
        ]);
        assert.notEqual(gone.code, 0);
        assert.match(gone.stderr, /the server doesn't have a resource type/);
        const vac = await kubectl(k, ["get", "volumeattributesclasses"]);
        assert.match(
          vac.stderr,
          /the server doesn't have a resource type "volumeattributesclasses"/,
        );
        assert.match(
          ok(await kubectl(k, ["get", "validatingadmissionpolicies"])),
          /no-bad-name\s+1\s+<unset>/,
        );
      } finally {
        await s.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
