/**
 * Ingress (networking.k8s.io/v1): rules routing outside HTTP traffic to Services. Validation as
 * kube-apiserver's; the class is defaulted by the DefaultIngressClass admission plugin; columns
 * as kubectl prints them.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { compareStrings } from "../../../../shared/api/validation/go_quote.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf,
  column,
  listOf,
  NAME_COLUMN,
  objectOf,
} from "../../generic/table_columns.ts";
import { validateIngressCreate, validateIngressSpec, validateIngressStatus } from "./validation.ts";

/** Up to three rule hosts, `*` when none, as kubectl's formatHosts. */
function formatHosts(rules: Record<string, unknown>[]): string {
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const r of rules) {
    if (hosts.length === max) more = true;
    if (!more && typeof r.host === "string" && r.host !== "") hosts.push(r.host);
  }
  if (hosts.length === 0) return "*";
  const text = hosts.join(",");
  return more ? `${text} + ${rules.length - max} more...` : text;
}

/** The load balancer's IPs and hostnames, sorted and comma-separated (wide: never clipped). */
function formatAddress(o: KubeObject): string {
  const set = new Set<string>();
  for (const i of listOf(objectOf(objectOf(o.status).loadBalancer).ingress)) {
    if (typeof i.ip === "string" && i.ip !== "") set.add(i.ip);
    if (typeof i.hostname === "string" && i.hostname !== "") set.add(i.hostname);
  }
  return [...set].sort(compareStrings).join(",");
}

const INGRESS_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "Class",
      "string",
      "The name of the IngressClass resource that should be used for additional configuration",
    ),
    column(
      "Hosts",
      "string",
      "Hosts that incoming requests are matched against before the ingress rule",
    ),
    column(
      "Address",
      "string",
      "Address is a list containing ingress points for the load-balancer",
    ),
    column("Ports", "string", "Ports of TLS configurations that open"),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = objectOf(o.spec);
    return [
      o.metadata?.name ?? "",
      typeof spec.ingressClassName === "string" ? spec.ingressClassName : "<none>",
      formatHosts(listOf(spec.rules)),
      formatAddress(o),
      listOf(spec.tls).length > 0 ? "80, 443" : "80",
      ageOf(o, now),
    ];
  },
};

/** The Ingress kind. */
export const ingressKind: KindDef = {
  group: "networking.k8s.io",
  version: "v1",
  kind: "Ingress",
  plural: "ingresses",
  singular: "ingress",
  shortNames: ["ing"],
  namespaced: true,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: INGRESS_COLUMNS,
    prepareForCreate(obj) {
      obj.status = { loadBalancer: {} };
    },
    validate: validateIngressCreate,
    validateUpdate(obj, old) {
      return [...validateIngressSpec(obj), ...validateIngressStatus(obj, old)];
    },
  },
};
