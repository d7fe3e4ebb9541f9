/**
 * The strategy of a custom resource version, as kube's customresource strategy: the status
 * left alone by main-resource writes when `/status` exists (the generic store does that),
 * the generation bumped on any other change, unknown fields pruned and defaults applied by
 * the version's compiled schema, then its validation and the scale paths' checks. Creates
 * are refused while the definition is terminating.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { CustomResourceDefinitionVersion } from "../../../../shared/api/apiextensions/v1/types.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import type { CustomResourceSchema } from "../schema/custom_resource_schema.ts";
import { STATUS_SUBRESOURCE, type Strategy, type SubresourceDef } from "../../generic/kind.ts";
import { customResourceTable } from "./printer_columns.ts";
import { validateScaleFields } from "./scale_subresource.ts";
import { parseJsonPath } from "./json_path.ts";

/** What a version's strategy is built from. */
export interface CustomResourceStrategyArgs {
  group: string;
  plural: string;
  version: CustomResourceDefinitionVersion;
  schema: CustomResourceSchema;
  /** The definition is being deleted: creates are refused. */
  terminating: boolean;
}

/** The strategy of one served version. */
export function customResourceStrategy(args: CustomResourceStrategyArgs): Strategy {
  const { version, schema } = args;
  const hasStatus = !!version.subresources?.status;
  const scale = version.subresources?.scale;
  const normalize = (obj: KubeObject) => {
    schema.prune(obj);
    schema.applyDefaults(obj);
  };
  return {
    prepareForCreate(obj) {
      if (args.terminating) {
        throw new StatusError({
          code: 405,
          reason: "MethodNotAllowed",
          message: "create not allowed while custom resource definition is terminating",
          details: { group: args.group, kind: args.plural },
        });
      }
      if (hasStatus) delete obj.status;
      normalize(obj);
    },
    prepareForUpdate(obj, old) {
      // Without /status the status is spec-like: changing it bumps the generation too.
      if (!hasStatus && !deepEqual(obj.status, old.status)) {
        obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
      }
      normalize(obj);
    },
    validate: (obj) => [...schema.validate(obj), ...validateScaleFields(obj, scale)],
    validateUpdate: (obj, old) => [
      ...schema.validate(obj, old),
      ...validateScaleFields(obj, scale),
    ],
    tableColumns: customResourceTable(version.additionalPrinterColumns),
    ...selectableFields(version),
  };
}

/** The status subresource of a version: the status replaced, then pruned and defaulted. */
export function customResourceStatus(schema: CustomResourceSchema): SubresourceDef {
  return {
    ...STATUS_SUBRESOURCE,
    update(body, old) {
      const next = STATUS_SUBRESOURCE.update!(body, old);
      schema.prune(next);
      schema.applyDefaults(next);
      return next;
    },
  };
}

/** The version's `selectableFields` as field selector labels (values as strings). */
function selectableFields(
  version: CustomResourceDefinitionVersion,
): Pick<Strategy, "selectableFields" | "selectableFieldNames"> {
  const declared = version.selectableFields ?? [];
  if (declared.length === 0) return {};
  const fields = declared.map((f) => ({
    label: f.jsonPath.replace(/^\./, ""),
    path: parseJsonPath(f.jsonPath),
  }));
  return {
    selectableFieldNames: fields.map((f) => f.label),
    selectableFields(obj) {
      const out: Record<string, string> = {};
      for (const f of fields) {
        const [v] = f.path.find(obj);
        out[f.label] = v === undefined || v === null ? "" : String(v);
      }
      return out;
    },
  };
}
