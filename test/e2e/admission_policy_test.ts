import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../support/test_server.ts";

const VAP = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const VAPB = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";

interface Reply {
  status: number;
  body: Record<string, unknown>;
  warning: string | null;
}

async function call(
  s: TestServer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const res = await s.fetch(path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? JSON.parse(text) : {},
    warning: res.headers.get("warning"),
  };
}

function configMap(name: string, data: Record<string, string>, labels = {}) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels }, data };
}

const CM_RULES = {
  resourceRules: [{
    apiGroups: [""],
    apiVersions: ["v1"],
    operations: ["CREATE", "UPDATE"],
    resources: ["configmaps"],
  }],
};

async function policy(
  s: TestServer,
  name: string,
  spec: Record<string, unknown>,
  binding: Record<string, unknown> = {},
): Promise<void> {
  const p = await call(s, "POST", VAP, {
    metadata: { name },
    spec: { matchConstraints: CM_RULES, ...spec },
  });
  assert.equal(p.status, 201, JSON.stringify(p.body));
  const b = await call(s, "POST", VAPB, {
    metadata: { name: `${name}-binding` },
    spec: { policyName: name, validationActions: ["Deny"], ...binding },
  });
  assert.equal(b.status, 201, JSON.stringify(b.body));
}

async function remove(s: TestServer, name: string): Promise<void> {
  await call(s, "DELETE", `${VAPB}/${name}-binding`);
  await call(s, "DELETE", `${VAP}/${name}`);
}

async function ns(s: TestServer, name: string, labels: Record<string, string> = {}) {
  const r = await call(s, "POST", "/api/v1/namespaces", { metadata: { name, labels } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

const cms = (namespace: string) => `/api/v1/namespaces/${namespace}/configmaps`;

Deno.test("ValidatingAdmissionPolicy denies, warns and evaluates params, variables and namespaces", async (t) => {
  const s = await startTestServer();
  try {
    await ns(s, "team", { env: "prod" });
    await t.step("Deny with messageExpression and reason", async () => {
      await policy(s, "no-bad", {
        validations: [{
          expression: "!has(object.data) || !('bad' in object.data)",
          messageExpression: "'configmap ' + object.metadata.name + ' has a bad key'",
          reason: "Forbidden",
        }],
      });
      const r = await call(s, "POST", cms("team"), configMap("c1", { bad: "1" }));
      assert.equal(r.status, 403, JSON.stringify(r.body));
      assert.equal(r.body.reason, "Forbidden");
      assert.equal(
        r.body.message,
        `configmaps "c1" is forbidden: ValidatingAdmissionPolicy 'no-bad' with binding ` +
          `'no-bad-binding' denied request: configmap c1 has a bad key`,
      );
      const ok = await call(s, "POST", cms("team"), configMap("c2", { good: "1" }));
      assert.equal(ok.status, 201);
      await remove(s, "no-bad");
      const later = await call(s, "POST", cms("team"), configMap("c1", { bad: "1" }));
      assert.equal(later.status, 201, "a deleted binding no longer applies");
    });
    await t.step("Warn returns a Warning header and admits", async () => {
      await policy(s, "warn-size", {
        validations: [{ expression: "size(object.data) < 2", message: "too many keys" }],
      }, { validationActions: ["Warn"] });
      const r = await call(s, "POST", cms("team"), configMap("w1", { a: "1", b: "2" }));
      assert.equal(r.status, 201);
      assert.equal(
        r.warning,
        `299 - "Validation failed for ValidatingAdmissionPolicy 'warn-size' with binding ` +
          `'warn-size-binding': too many keys"`,
      );
      await remove(s, "warn-size");
    });
    await t.step("variables and namespaceObject; default reason is Invalid (422)", async () => {
      await policy(s, "ns-env", {
        variables: [{
          name: "env",
          expression: "'env' in namespaceObject.metadata.labels ? " +
            "namespaceObject.metadata.labels['env'] : 'none'",
        }],
        validations: [{
          expression: "variables.env != 'prod' || object.data.all(k, k.startsWith('prod-'))",
          messageExpression: "'keys must start with ' + variables.env + '-'",
        }],
      });
      const r = await call(s, "POST", cms("team"), configMap("v1", { x: "1" }));
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.body.reason, "Invalid");
      assert.match(String(r.body.message), /denied request: keys must start with prod-$/);
      const ok = await call(s, "POST", cms("team"), configMap("v2", { "prod-x": "1" }));
      assert.equal(ok.status, 201);
      const other = await call(s, "POST", cms("default"), configMap("v1", { x: "1" }));
      assert.equal(other.status, 201, JSON.stringify(other.body));
      await remove(s, "ns-env");
    });
    await t.step(
      "params from ConfigMaps picked by a selector, parameterNotFoundAction",
      async () => {
        await policy(s, "max-keys", {
          paramKind: { apiVersion: "v1", kind: "ConfigMap" },
          matchConstraints: {
            ...CM_RULES,
            objectSelector: { matchLabels: { checked: "yes" } },
          },
          validations: [{
            expression: "size(object.data) <= int(params.data.max)",
            messageExpression:
              "'at most ' + params.data.max + ' keys (' + params.metadata.name + ')'",
          }],
        }, {
          paramRef: {
            namespace: "default",
            selector: { matchLabels: { role: "limits" } },
            parameterNotFoundAction: "Deny",
          },
        });
        const checked = { checked: "yes" };
        const none = await call(s, "POST", cms("team"), configMap("p0", { a: "1" }, checked));
        assert.equal(none.status, 422);
        assert.match(
          String(none.body.message),
          /failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction/,
        );
        const lim = configMap("limit-a", { max: "1" }, { role: "limits" });
        assert.equal((await call(s, "POST", cms("default"), lim)).status, 201);
        const r = await call(s, "POST", cms("team"), configMap("p1", { a: "1", b: "2" }, checked));
        assert.equal(r.status, 422);
        assert.match(String(r.body.message), /at most 1 keys \(limit-a\)$/);
        const ok = await call(s, "POST", cms("team"), configMap("p2", { a: "1" }, checked));
        assert.equal(ok.status, 201, JSON.stringify(ok.body));
        const unlabeled = await call(s, "POST", cms("team"), configMap("p3", { a: "1", b: "2" }));
        assert.equal(unlabeled.status, 201, "the object selector leaves it out");
        await remove(s, "max-keys");
      },
    );
  } finally {
    await s.close();
  }
});

Deno.test("ValidatingAdmissionPolicy failure policy, authorizer and Allow of missing params", async (t) => {
  const s = await startTestServer();
  try {
    await ns(s, "team");
    await t.step("a runtime error fails the request under Fail, passes under Ignore", async () => {
      await policy(s, "err-fail", { validations: [{ expression: "object.data.missing == 'x'" }] });
      const r = await call(s, "POST", cms("team"), configMap("e1", { a: "1" }));
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.match(
        String(r.body.message),
        /ValidatingAdmissionPolicy 'err-fail' with binding 'err-fail-binding' denied request: expression 'object.data.missing == 'x'' resulted in error: /,
      );
      await remove(s, "err-fail");
      await policy(s, "err-ignore", {
        failurePolicy: "Ignore",
        validations: [{ expression: "object.data.missing == 'x'" }],
      });
      const ok = await call(s, "POST", cms("team"), configMap("e2", { a: "1" }));
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      await remove(s, "err-ignore");
    });
    await t.step("parameterNotFoundAction Allow admits without evaluating", async () => {
      await policy(s, "allow-missing", {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        validations: [{ expression: "false" }],
      }, { paramRef: { name: "absent", parameterNotFoundAction: "Allow" } });
      const ok = await call(s, "POST", cms("team"), configMap("a1", { a: "1" }));
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      await remove(s, "allow-missing");
    });
    await t.step("the authorizer variable asks the server's authorizer for the user", async () => {
      const rbac = "/apis/rbac.authorization.k8s.io/v1";
      const role = await call(s, "POST", `${rbac}/namespaces/team/roles`, {
        metadata: { name: "cm-writer" },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["create"] }],
      });
      assert.equal(role.status, 201, JSON.stringify(role.body));
      const rb = await call(s, "POST", `${rbac}/namespaces/team/rolebindings`, {
        metadata: { name: "alice-cm" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "cm-writer" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" }],
      });
      assert.equal(rb.status, 201, JSON.stringify(rb.body));
      await policy(s, "secret-readers", {
        validations: [{
          expression: "authorizer.group('').resource('secrets').namespace(request.namespace)" +
            ".check('list').allowed() && authorizer.requestResource.check('create').allowed()",
          message: "only secret readers may write configmaps",
        }],
      });
      const admin = await call(s, "POST", cms("team"), configMap("z1", {}));
      assert.equal(admin.status, 201, JSON.stringify(admin.body));
      let denied: Reply | undefined;
      for (let i = 0; i < 50; i++) {
        denied = await call(s, "POST", cms("team"), configMap("z2", {}), {
          "impersonate-user": "alice",
        });
        if (denied.status !== 403 || !String(denied.body.message).includes("cannot create")) break;
        await new Promise((r) => setTimeout(r, 100)); // RBAC indexes follow the feed
      }
      assert.equal(denied!.status, 422, JSON.stringify(denied!.body));
      assert.match(String(denied!.body.message), /only secret readers may write configmaps$/);
      await remove(s, "secret-readers");
    });
    await t.step(
      "matchPolicy Equivalent evaluates another version's request in the matched version",
      async () => {
        const rule = {
          apiGroups: ["autoscaling"],
          apiVersions: ["v1"],
          operations: ["CREATE"],
          resources: ["horizontalpodautoscalers"],
        };
        await policy(s, "hpa-cpu", {
          matchConstraints: { resourceRules: [rule] },
          validations: [{
            expression: "request.kind.version == 'v1' && " +
              "object.spec.targetCPUUtilizationPercentage <= 80",
            messageExpression: "'cpu target ' + string(object.spec.targetCPUUtilizationPercentage)",
          }],
        });
        const hpa = (name: string, cpu: number) => ({
          apiVersion: "autoscaling/v2",
          kind: "HorizontalPodAutoscaler",
          metadata: { name },
          spec: {
            scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
            minReplicas: 1,
            maxReplicas: 3,
            metrics: [{
              type: "Resource",
              resource: { name: "cpu", target: { type: "Utilization", averageUtilization: cpu } },
            }],
          },
        });
        const path = "/apis/autoscaling/v2/namespaces/team/horizontalpodautoscalers";
        const r = await call(s, "POST", path, hpa("h1", 90));
        assert.equal(r.status, 422, JSON.stringify(r.body));
        assert.match(String(r.body.message), /denied request: cpu target 90$/);
        assert.equal((await call(s, "POST", path, hpa("h2", 50))).status, 201);
        await call(s, "DELETE", `${VAPB}/hpa-cpu-binding`);
        await call(s, "DELETE", `${VAP}/hpa-cpu`);
        await policy(s, "hpa-exact", {
          matchConstraints: { resourceRules: [rule], matchPolicy: "Exact" },
          validations: [{ expression: "false" }],
        });
        assert.equal((await call(s, "POST", path, hpa("h3", 90))).status, 201);
        const v1 = await call(s, "POST", path.replace("/v2/", "/v1/"), {
          apiVersion: "autoscaling/v1",
          kind: "HorizontalPodAutoscaler",
          metadata: { name: "h4" },
          spec: {
            scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
            maxReplicas: 3,
            targetCPUUtilizationPercentage: 50,
          },
        });
        assert.equal(v1.status, 422, "an Exact v1 rule matches a request sent as v1");
        await remove(s, "hpa-exact");
      },
    );
    await t.step("the status carries type checking warnings for the matched kinds", async () => {
      const body = {
        metadata: { name: "typed" },
        spec: {
          matchConstraints: {
            resourceRules: [{
              apiGroups: ["apps"],
              apiVersions: ["v1"],
              operations: ["CREATE"],
              resources: ["deployments"],
            }],
          },
          validations: [
            { expression: "object.spec.replicas <= 5" },
            {
              expression: "object.spec.replicass <= 5",
              messageExpression: "'n: ' + string(object.spec.replicass)",
            },
          ],
        },
      };
      assert.equal((await call(s, "POST", VAP, body)).status, 201);
      let status: Record<string, unknown> = {};
      for (let i = 0; i < 100 && status.observedGeneration !== 1; i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = ((await call(s, "GET", `${VAP}/typed`)).body.status ?? {}) as typeof status;
      }
      assert.equal(status.observedGeneration, 1);
      const warnings = (status.typeChecking as { expressionWarnings: unknown[] })
        .expressionWarnings as { fieldRef: string; warning: string }[];
      assert.deepEqual(warnings.map((w) => w.fieldRef), [
        "spec.validations[1].expression",
        "spec.validations[1].messageExpression",
      ]);
      assert.match(
        warnings[0].warning,
        /^apps\/v1, Kind=Deployment: ERROR: <input>:1:13: undefined field 'replicass'\n/,
      );
      assert.match(warnings[1].warning, /undefined field 'replicass'/);
      const fixed = await s.fetch(`${VAP}/typed`, {
        method: "PATCH",
        headers: { "content-type": "application/merge-patch+json" },
        body: JSON.stringify({
          spec: { validations: [{ expression: "object.spec.replicas <= 5" }] },
        }),
      });
      assert.equal(fixed.status, 200, await fixed.text());
      for (let i = 0; i < 100 && status.observedGeneration !== 2; i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = ((await call(s, "GET", `${VAP}/typed`)).body.status ?? {}) as typeof status;
      }
      assert.equal(status.observedGeneration, 2);
      assert.deepEqual(status.typeChecking, {});
    });
  } finally {
    await s.close();
  }
});
