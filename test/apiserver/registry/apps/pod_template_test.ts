import assert from "node:assert/strict";
import {
  defaultPodSpec,
  defaultPullPolicy,
  validatePodTemplate,
} from "../../../../apiserver/registry/apps/pod_template.ts";

Deno.test("defaultPullPolicy() is Always for latest or no tag, IfNotPresent otherwise", () => {
  assert.equal(defaultPullPolicy("nginx"), "Always");
  assert.equal(defaultPullPolicy("nginx:latest"), "Always");
  assert.equal(defaultPullPolicy("registry:5000/nginx"), "Always");
  assert.equal(defaultPullPolicy("nginx:1.27"), "IfNotPresent");
  assert.equal(defaultPullPolicy("nginx@sha256:abc"), "IfNotPresent");
});

Deno.test("defaultPodSpec() sets Kubernetes' pod spec defaults", () => {
  const spec: Record<string, unknown> = {
    containers: [{
      name: "a",
      image: "a:1",
      ports: [{ containerPort: 80 }],
      readinessProbe: { httpGet: { port: 80 } },
    }],
    volumes: [{ name: "scratch" }, { name: "cfg", configMap: { name: "c" } }],
  };
  defaultPodSpec(spec);
  assert.deepEqual(spec, {
    containers: [{
      name: "a",
      image: "a:1",
      ports: [{ containerPort: 80, protocol: "TCP" }],
      readinessProbe: {
        httpGet: { port: 80, scheme: "HTTP" },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      },
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
      imagePullPolicy: "IfNotPresent",
      resources: {},
    }],
    volumes: [
      { name: "scratch", emptyDir: {} },
      { name: "cfg", configMap: { name: "c", defaultMode: 420 } },
    ],
    restartPolicy: "Always",
    dnsPolicy: "ClusterFirst",
    terminationGracePeriodSeconds: 30,
    schedulerName: "default-scheduler",
    securityContext: {},
  });
});

Deno.test("validatePodTemplate() reports kube's field paths", () => {
  const errs = validatePodTemplate("spec.template", {
    metadata: { labels: { app: "x" } },
    spec: {
      restartPolicy: "Always",
      containers: [{
        name: "Bad_Name",
        terminationMessagePolicy: "File",
        imagePullPolicy: "Always",
      }],
    },
  });
  assert.deepEqual(errs.map((e) => `${e.field} ${e.type}`), [
    "spec.template.spec.containers[0].name FieldValueInvalid",
    "spec.template.spec.containers[0].image FieldValueRequired",
  ]);
  assert.deepEqual(validatePodTemplate("spec.template", undefined).map((e) => e.field), [
    "spec.template",
  ]);
});
