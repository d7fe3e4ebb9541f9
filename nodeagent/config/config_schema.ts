/**
 * The shape of a configuration document, used to type-check each file field by field before
 * merging, so that every problem is reported with its file and field path.
 *
 * @module
 */
import { DurationParseError, parseDuration } from "../../shared/time/duration.ts";

/** One node of the schema. */
export type FieldSchema =
  | { type: "string" | "integer" | "boolean" | "duration" }
  | { type: "enum"; values: readonly string[] }
  | { type: "list"; items: FieldSchema }
  | { type: "map"; values: FieldSchema }
  | { type: "struct"; fields: Record<string, FieldSchema> };

const str: FieldSchema = { type: "string" };
const int: FieldSchema = { type: "integer" };
const bool: FieldSchema = { type: "boolean" };
const dur: FieldSchema = { type: "duration" };
const strMap: FieldSchema = { type: "map", values: str };

/** The schema of a whole configuration file. */
export const CONFIG_SCHEMA: FieldSchema = {
  type: "struct",
  fields: {
    apiVersion: str,
    kind: str,
    featureGates: { type: "map", values: bool },
    nodeStatusUpdateFrequency: dur,
    nodeStatusReportFrequency: dur,
    nodeLeaseDurationSeconds: int,
    systemReserved: strMap,
    kubeReserved: strMap,
    evictionHard: strMap,
    evictionPressureTransitionPeriod: dur,
    clusterDNS: { type: "list", items: str },
    clusterDomain: str,
    staticPodURLHeader: { type: "map", values: { type: "list", items: str } },
    authorization: {
      type: "struct",
      fields: {
        mode: { type: "enum", values: ["AlwaysAllow", "Webhook"] },
        webhook: {
          type: "struct",
          fields: { cacheAuthorizedTTL: dur, cacheUnauthorizedTTL: dur },
        },
      },
    },
    authentication: {
      type: "struct",
      fields: {
        x509: { type: "struct", fields: { clientCAFile: str } },
        webhook: { type: "struct", fields: { enabled: bool, cacheTTL: dur } },
        anonymous: { type: "struct", fields: { enabled: bool } },
      },
    },
    address: str,
    port: int,
    tlsCertFile: str,
    tlsPrivateKeyFile: str,
    rootDir: str,
    nodeLabels: strMap,
    maxPods: int,
    containerRuntimeEndpoint: str,
    registerNode: bool,
    seccompDefault: bool,
    rotateCertificates: bool,
    serverTLSBootstrap: bool,
  },
};

/** One configuration problem, reported with where it was found. */
export interface ConfigProblem {
  /** The file the offending value came from (or `--flag` for a command-line value). */
  file: string;
  /** Field path, e.g. `authorization.webhook.cacheAuthorizedTTL` or `featureGates[Foo]`. */
  field: string;
  /** What is wrong. */
  message: string;
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "list";
  if (typeof v === "object") return "map";
  return typeof v;
}

/**
 * Checks a decoded document against a schema and returns every problem found (unknown fields,
 * wrong types, unparsable durations, values outside an enum) and a copy of the document with the
 * offending fields left out, so that the rest can still be merged and validated.
 */
export function checkFieldTypes(
  value: unknown,
  schema: FieldSchema,
  file: string,
  field = "",
): { problems: ConfigProblem[]; clean: unknown } {
  const problems: ConfigProblem[] = [];
  const clean = check(value, schema, file, field, problems);
  return { problems, clean };
}

function check(
  value: unknown,
  schema: FieldSchema,
  file: string,
  field: string,
  problems: ConfigProblem[],
): unknown {
  const bad = (message: string) => {
    problems.push({ file, field: field || "<root>", message });
    return undefined;
  };
  if (value === null || value === undefined) return undefined;
  switch (schema.type) {
    case "string":
      return typeof value === "string" ? value : bad(`expected a string, got ${kindOf(value)}`);
    case "integer":
      return typeof value === "number" && Number.isInteger(value)
        ? value
        : bad(`expected an integer, got ${JSON.stringify(value)}`);
    case "boolean":
      return typeof value === "boolean"
        ? value
        : bad(`expected true or false, got ${JSON.stringify(value)}`);
    case "duration":
      if (typeof value !== "string") {
        return bad(`expected a duration such as "10s", got ${kindOf(value)}`);
      }
      try {
        parseDuration(value);
      } catch (err) {
        if (err instanceof DurationParseError) return bad(err.message);
        throw err;
      }
      return value;
    case "enum":
      if (typeof value !== "string" || !schema.values.includes(value)) {
        return bad(
          `unsupported value ${JSON.stringify(value)}: supported values: ${
            schema.values.map((v) => `"${v}"`).join(", ")
          }`,
        );
      }
      return value;
    case "list": {
      if (!Array.isArray(value)) return bad(`expected a list, got ${kindOf(value)}`);
      const before = problems.length;
      const out = value.map((item, i) =>
        check(item, schema.items, file, `${field}[${i}]`, problems)
      );
      return problems.length === before ? out : undefined;
    }
    case "map": {
      if (kindOf(value) !== "map") return bad(`expected a map, got ${kindOf(value)}`);
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const c = check(v, schema.values, file, `${field}[${k}]`, problems);
        if (c !== undefined) out[k] = c;
      }
      return out;
    }
    case "struct": {
      if (kindOf(value) !== "map") return bad(`expected a map, got ${kindOf(value)}`);
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const path = field ? `${field}.${k}` : k;
        const child = schema.fields[k];
        if (!child) {
          problems.push({ file, field: path, message: "unknown field" });
          continue;
        }
        const c = check(v, child, file, path, problems);
        if (c !== undefined) out[k] = c;
      }
      return out;
    }
  }
}
