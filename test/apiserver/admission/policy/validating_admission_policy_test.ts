import assert from "node:assert/strict";
import { validatingAdmissionPolicy } from "../../../../apiserver/admission/policy/validating_admission_policy.ts";
import { VALIDATION_FAILURE_ANNOTATION } from "../../../../apiserver/admission/policy/request_context.ts";
import { AlwaysAllowAuthorizer } from "../../../../apiserver/auth/authz/static_authorizers.ts";
import { BUILTIN_KINDS } from "../../../../apiserver/registry/builtin_kinds.ts";
import type {
  AdmissionAttributes,
  AdmissionPlugin,
} from "../../../../apiserver/registry/generic/admission.ts";
import { ResourceRegistry } from "../../../../apiserver/registry/resource_registry.ts";
import { ChangeFeed } from "../../../../apiserver/watch/change_feed.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { withTempStorage } from "../../../support/registry_harness.ts";

const GROUP = "admissionregistration.k8s.io";

interface Env {
  registry: ResourceRegistry;
  plugin: AdmissionPlugin;
  /** Creates a policy (matching ConfigMap creates) and its binding. */
  policy(
    name: string,
    spec: Record<string, unknown>,
    binding?: Record<string, unknown>,
  ): Promise<void>;
  /** Runs the plugin on a ConfigMap create; returns the attributes or the error. */
  admit(obj: KubeObject, over?: Partial<AdmissionAttributes>): Promise<AdmissionAttributes>;
}

async function withPlugin(fn: (env: Env) => Promise<void>): Promise<void> {
  await withTempStorage("vap_plugin_", async ({ storage }) => {
    const registry = new ResourceRegistry({ storage });
    for (const k of BUILTIN_KINDS) registry.add(k);
    const feed = new ChangeFeed({ storage, remote: false, historyWindowMs: 60_000 });
    await feed.start();
    const authorizer = new AlwaysAllowAuthorizer();
    const plugin = validatingAdmissionPolicy({ registry, feed, authorizer: () => authorizer });
    const policies = registry.lookup(GROUP, "v1", "validatingadmissionpolicies")!;
    const bindings = registry.lookup(GROUP, "v1", "validatingadmissionpolicybindings")!;
    const cms = registry.lookup("", "v1", "configmaps")!;
    try {
      await fn({
        registry,
        plugin,
        async policy(name, spec, binding = {}) {
          await policies.create("", {
            metadata: { name },
            spec: {
              matchConstraints: {
                resourceRules: [{
                  apiGroups: [""],
                  apiVersions: ["v1"],
                  operations: ["CREATE"],
                  resources: ["configmaps"],
                }],
              },
              ...spec,
            },
          });
          await bindings.create("", {
            metadata: { name: `${name}-b` },
            spec: { policyName: name, validationActions: ["Deny"], ...binding },
          });
        },
        async admit(obj, over = {}) {
          const attrs: AdmissionAttributes = {
            operation: "CREATE",
            kind: cms.def,
            namespace: "default",
            name: obj.metadata.name ?? "",
            subresource: "",
            object: obj,
            dryRun: false,
            user: { username: "alice", groups: ["system:authenticated"] },
            ...over,
          };
          await plugin.validate!(attrs);
          return attrs;
        },
      });
    } finally {
      await feed.stop();
    }
  });
}

async function rejection(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail("expected a rejection");
}

const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default" },
  data,
});

Deno.test("validatingAdmissionPolicy() records Audit failures and audit annotations", async () => {
  await withPlugin(async ({ policy, admit }) => {
    await policy("audited", {
      validations: [{ expression: "object.metadata.name != 'x'", message: "no x" }],
      auditAnnotations: [{ key: "seen", valueExpression: "'name=' + object.metadata.name" }],
    }, { validationActions: ["Audit", "Warn"] });
    const warnings: string[] = [];
    const attrs = await admit(cm("x"), { warn: (m) => warnings.push(m) });
    assert.deepEqual(warnings, [
      "Validation failed for ValidatingAdmissionPolicy 'audited' with binding 'audited-b': no x",
    ]);
    assert.deepEqual(JSON.parse(attrs.auditAnnotations![VALIDATION_FAILURE_ANNOTATION]), [{
      message: "no x",
      policy: "audited",
      binding: "audited-b",
      expressionIndex: 0,
      validationActions: ["Audit", "Warn"],
    }]);
    assert.equal(attrs.auditAnnotations!["audited/seen"], "name=x");
  });
});

Deno.test("validatingAdmissionPolicy() skips on a false match condition and never checks its own kinds", async () => {
  await withPlugin(async ({ registry, policy, admit }) => {
    await policy("only-y", {
      matchConditions: [{ name: "is-y", expression: "object.metadata.name == 'y'" }],
      validations: [{ expression: "false", message: "denied" }],
    });
    await admit(cm("x"));
    const e = await rejection(admit(cm("y")));
    assert.equal(e.code, 422);
    assert.match(
      e.message,
      /ValidatingAdmissionPolicy 'only-y' with binding 'only-y-b' denied request: denied$/,
    );
    const vap = registry.lookup(GROUP, "v1", "validatingadmissionpolicies")!;
    await admit({ metadata: { name: "y" } }, { kind: vap.def, namespace: "" });
  });
});

Deno.test("validatingAdmissionPolicy() enforces the per-expression cost limit under the failure policy", async () => {
  await withPlugin(async ({ policy, admit }) => {
    await policy("costly", {
      validations: [{
        expression: "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, " +
          "[1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, " +
          "[1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a + b + c + d + e + f > 0))))))",
      }],
    });
    const e = await rejection(admit(cm("x")));
    assert.match(e.message, /resulted in error: operation cancelled: actual cost limit exceeded$/);
  });
});

Deno.test("validatingAdmissionPolicy() reports an unknown param kind as a policy configuration error", async () => {
  await withPlugin(async ({ policy, admit }) => {
    await policy("params", {
      paramKind: { apiVersion: "example.com/v1", kind: "Missing" },
      validations: [{ expression: "true" }],
    }, { paramRef: { name: "p", parameterNotFoundAction: "Deny" } });
    const e = await rejection(admit(cm("x")));
    assert.equal(
      e.status.message,
      `configmaps "x" is forbidden: ValidatingAdmissionPolicy 'params' denied request: failed to ` +
        `configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Missing'`,
    );
  });
});

Deno.test("validatingAdmissionPolicy() stops at the runtime budget with Kubernetes' message", async () => {
  await withPlugin(async ({ policy, admit }) => {
    const twoChecks = "authorizer.path('/a').check('get').allowed() && " +
      "authorizer.path('/b').check('get').allowed()";
    await policy("budget", {
      validations: Array.from({ length: 15 }, () => ({ expression: twoChecks })),
    });
    const e = await rejection(admit(cm("x")));
    assert.match(
      e.message,
      /denied request: validation failed due to running out of cost budget, no further validation rules will be run$/,
    );
  });
});
