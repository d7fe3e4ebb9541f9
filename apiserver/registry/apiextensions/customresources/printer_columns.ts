/**
 * The Table of a custom resource version: Name, then its `additionalPrinterColumns` (or Age
 * when it declares none, as kube-apiserver serves them), each cell evaluated with the column's
 * JSONPath and formatted by the column's type as kube's CRD table convertor does.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { CustomResourceColumnDefinition } from "../../../../shared/api/apiextensions/v1/types.ts";
import type { TableColumnDefinition, TableColumns } from "../../generic/kind.ts";
import { humanDuration, NAME_COLUMN } from "../../generic/table_columns.ts";
import { type JsonPath, parseJsonPath } from "./json_path.ts";

const CREATION_TIMESTAMP_DESCRIPTION =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** kube's default columns of a CRD version without its own: Age of the creation timestamp. */
const DEFAULT_COLUMNS: CustomResourceColumnDefinition[] = [{
  name: "Age",
  type: "date",
  description: CREATION_TIMESTAMP_DESCRIPTION,
  jsonPath: ".metadata.creationTimestamp",
}];

/** The Table columns of a CRD version's printer columns. */
export function customResourceTable(
  declared: readonly CustomResourceColumnDefinition[] | undefined,
): TableColumns {
  const cols = declared?.length ? declared : DEFAULT_COLUMNS;
  const paths: (JsonPath | undefined)[] = cols.map((c) => {
    try {
      return parseJsonPath(c.jsonPath);
    } catch {
      return undefined;
    }
  });
  const columns: TableColumnDefinition[] = [
    NAME_COLUMN,
    ...cols.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? "",
      description: c.description ||
        `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
      priority: c.priority ?? 0,
    })),
  ];
  return {
    columns,
    cells(obj: KubeObject, now: number): unknown[] {
      const row: unknown[] = [obj.metadata?.name ?? ""];
      cols.forEach((c, i) => {
        const found = paths[i]?.find(obj) ?? [];
        row.push(found.length === 0 ? null : cellOf(c.type, found[0], now));
      });
      return row;
    },
  };
}

/** A cell of a column's type (kube's cellForJSONValue, and jsonpath's text for strings). */
export function cellOf(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "string":
      return textOf(value);
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date": {
      if (typeof value !== "string") return null;
      const t = Date.parse(value);
      if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}T/.test(value)) return "<invalid>";
      return humanDuration(now - t);
    }
  }
  return null;
}

/** jsonpath's text of a value: strings as they are, objects and lists as JSON. */
function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
