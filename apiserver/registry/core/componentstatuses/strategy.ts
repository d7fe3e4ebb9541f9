/**
 * ComponentStatus (deprecated in Kubernetes since 1.19, still served): read-only, computed on
 * every read. This server reports its storage (`storage-0`): Healthy when a round trip to the
 * database answers. Columns Name, Status, Message, Error as kubectl prints them.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { column as col, listOf as list, NAME_COLUMN } from "../../generic/table_columns.ts";

/** A health check of one component: resolves when healthy, rejects with the reason if not. */
export type HealthCheck = () => Promise<void>;

const CS_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col("Status", "string", "Status of the component conditions"),
    col("Message", "string", "Message of the component conditions"),
    col("Error", "string", "Error of the component conditions"),
  ],
  cells(o) {
    const c = list(o.conditions).find((c) => c.type === "Healthy");
    const status = !c ? "Unknown" : c.status === "True" ? "Healthy" : "Unhealthy";
    return [o.metadata?.name ?? "", status, String(c?.message ?? ""), String(c?.error ?? "")];
  },
};

async function statusOf(name: string, check: HealthCheck): Promise<KubeObject> {
  let condition: Record<string, string>;
  try {
    await check();
    condition = { type: "Healthy", status: "True", message: "ok" };
  } catch (err) {
    condition = { type: "Healthy", status: "False", error: String((err as Error)?.message ?? err) };
  }
  return { metadata: { name }, conditions: [condition] };
}

/** The ComponentStatus kind, reporting `components` (name → check). */
export function componentStatusKind(components: Record<string, HealthCheck>): KindDef {
  return {
    group: "",
    version: "v1",
    kind: "ComponentStatus",
    plural: "componentstatuses",
    singular: "componentstatus",
    shortNames: ["cs"],
    namespaced: false,
    verbs: ["get", "list"],
    // kube 1.32's wording (deprecated without a removal release).
    deprecationWarning: "v1 ComponentStatus is deprecated in v1.19+",
    computed: {
      list: () => Promise.all(Object.entries(components).map(([n, c]) => statusOf(n, c))),
    },
    strategy: { tableColumns: CS_COLUMNS, validate: () => [] },
  };
}
