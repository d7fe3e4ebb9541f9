/**
 * Fixtures of the custom resource end-to-end tests: a CronTab-like definition (namespaced,
 * `/status`, `/scale`, printer columns, shortNames, categories) and waiting for it to be
 * established and served.
 *
 * @module
 */
import type { CustomResourceDefinition } from "../../shared/api/apiextensions/v1/types.ts";
import { eventually } from "../support/eventually.ts";
import { jsonCall } from "../support/json_call.ts";
import type { TestServer } from "../support/test_server.ts";

/** The group of the fixtures. */
export const GROUP = "stable.example.com";

/** The CRDs path. */
export const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/** A CronTab definition: plural `crontabs`, versions `v1` (storage) and `v1beta1`. */
export function cronTabCrd(
  overrides: { scope?: string; plural?: string; kind?: string } = {},
): CustomResourceDefinition {
  const plural = overrides.plural ?? "crontabs";
  const kind = overrides.kind ?? "CronTab";
  const schema = {
    openAPIV3Schema: {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            cronSpec: { type: "string" },
            image: { type: "string" },
            replicas: { type: "integer" },
          },
        },
        status: {
          type: "object",
          properties: {
            replicas: { type: "integer" },
            labelSelector: { type: "string" },
            conditions: {
              type: "array",
              items: {
                type: "object",
                properties: { type: { type: "string" }, status: { type: "string" } },
              },
            },
          },
        },
      },
    },
  };
  const version = (name: string, storage: boolean) => ({
    name,
    served: true,
    storage,
    schema,
    subresources: {
      status: {},
      scale: {
        specReplicasPath: ".spec.replicas",
        statusReplicasPath: ".status.replicas",
        labelSelectorPath: ".status.labelSelector",
      },
    },
    additionalPrinterColumns: [
      { name: "Spec", type: "string", jsonPath: ".spec.cronSpec" },
      { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
      {
        name: "Ready",
        type: "string",
        jsonPath: '.status.conditions[?(@.type=="Ready")].status',
      },
      { name: "Image", type: "string", jsonPath: ".spec.image", priority: 1 },
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ],
  });
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: overrides.scope ?? "Namespaced",
      names: {
        plural,
        singular: kind.toLowerCase(),
        kind,
        listKind: `${kind}List`,
        shortNames: plural === "crontabs" ? ["ct"] : [],
        categories: ["all"],
      },
      versions: [version("v1", true), version("v1beta1", false)],
    },
  };
}

/** Creates a definition and waits until it is established and its resource served. */
export async function createEstablished(
  t: TestServer,
  crd: CustomResourceDefinition,
  // deno-lint-ignore no-explicit-any
): Promise<Record<string, any>> {
  const created = await jsonCall(t, "POST", CRDS, crd);
  if (created.status !== 201) throw new Error(`create CRD: ${JSON.stringify(created.json)}`);
  return await waitEstablished(t, crd);
}

/** Waits until a definition is established and its resource listed. */
export async function waitEstablished(
  t: TestServer,
  crd: CustomResourceDefinition,
  // deno-lint-ignore no-explicit-any
): Promise<Record<string, any>> {
  return await eventually(`${crd.metadata.name} established`, async () => {
    const got = await jsonCall(t, "GET", `${CRDS}/${crd.metadata.name}`);
    // deno-lint-ignore no-explicit-any
    const conds: any[] = got.json.status?.conditions ?? [];
    if (!conds.some((c) => c.type === "Established" && c.status === "True")) return undefined;
    const list = await jsonCall(t, "GET", `/apis/${crd.spec.group}/v1/${crd.spec.names.plural}`);
    return list.status === 200 ? got.json : undefined;
  });
}

/** A CronTab object. */
export function cronTab(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: "CronTab",
    metadata: { name },
    spec: { cronSpec: "* * * * */5", image: "my-cron-image", replicas: 1, ...spec },
  };
}
