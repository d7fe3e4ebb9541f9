/**
 * End-to-end with the real kubectl: a ValidatingAdmissionPolicy and its binding created with
 * `kubectl create -f`, then a write the policy refuses shows the policy's message, and one
 * it warns about shows the warning. Skips where kubectl is absent.
 */
import assert from "node:assert/strict";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { startTestServer } from "../support/test_server.ts";

const MANIFEST = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
    messageExpression: "'replicas must be at most 5, got ' + string(object.spec.replicas)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit
  validationActions: [Deny]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: name-hint
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.metadata.name.startsWith('web')"
    message: "names should start with web"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: name-hint-binding
spec:
  policyName: name-hint
  validationActions: [Warn]
`;

Deno.test({
  name: "kubectl create -f of a policy and binding, then a refused write shows the message",
  ignore: skipWithoutKubectl("the admission policy kubectl tests"),
  async fn() {
    const s = await startTestServer();
    try {
      const k = kubectlFor(s);
      const created = ok(await kubectl(k, ["create", "-f", "-"], MANIFEST));
      assert.match(
        created,
        /validatingadmissionpolicy.admissionregistration.k8s.io\/replica-limit created/,
      );
      assert.match(
        created,
        /validatingadmissionpolicybinding.admissionregistration.k8s.io\/replica-limit-binding created/,
      );
      const refused = await kubectl(k, [
        "create",
        "deployment",
        "web",
        "--image=nginx",
        "--replicas=7",
      ]);
      assert.notEqual(refused.code, 0);
      assert.match(
        refused.stderr,
        /deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding' denied request: replicas must be at most 5, got 7/,
      );
      const warned = await kubectl(k, ["create", "deployment", "api", "--image=nginx"]);
      assert.equal(warned.code, 0, warned.stderr);
      assert.match(
        warned.stderr,
        /Warning: Validation failed for ValidatingAdmissionPolicy 'name-hint' with binding 'name-hint-binding': names should start with web/,
      );
      const ok1 = await kubectl(k, [
        "create",
        "deployment",
        "web",
        "--image=nginx",
        "--replicas=2",
      ]);
      assert.equal(ok1.code, 0, ok1.stderr);
      const listed = ok(await kubectl(k, ["get", "validatingadmissionpolicies"]));
      assert.match(listed, /replica-limit\s+1\s+<unset>/);
    } finally {
      await s.close();
    }
  },
});
