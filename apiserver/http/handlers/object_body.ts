/**
 * Reads an object body for create and update: decodes it (JSON, YAML or Protobuf), checks its
 * apiVersion and kind, and applies field validation against the schema model.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { builtinSchemaModel } from "../../../shared/api/schema/builtin_model.ts";
import { hasProtobuf } from "../../../shared/codec/protobuf/mod.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { isObject } from "../../../shared/json/is_object.ts";
import { typeInvalid } from "../../../shared/api/validation/field_errors.ts";
import { apiVersionOf } from "../../registry/generic/kind.ts";
import { decodeRequestBody, readBody } from "../body.ts";
import type { ResourceContext } from "../context.ts";
import { applyFieldValidation, type FieldValidationDirective } from "../field_validation.ts";
import { warningHeader } from "../respond.ts";

function directiveOf(q: URLSearchParams): FieldValidationDirective {
  const v = q.get("fieldValidation") ?? "";
  return v === "Ignore" || v === "Strict" ? v : "Warn";
}

/**
 * Reads, decodes and checks the object in a request body. Field validation warnings are added
 * to `ctx.warnings`.
 */
export async function readObjectBody(
  ctx: ResourceContext,
  expected?: {
    group?: string;
    apiVersion: string;
    kind: string;
    /** Other apiVersions the body may name (decoded as `apiVersion`). */
    alsoApiVersions?: readonly string[];
  },
): Promise<KubeObject> {
  const def = ctx.store.def;
  const want = expected?.apiVersion ?? apiVersionOf(def);
  const expectedKind = expected?.kind ?? def.kind;
  const directive = directiveOf(ctx.url.searchParams);
  const bytes = await readBody(ctx.req, ctx.conn.body);
  const decoded = await decodeRequestBody(ctx.req.headers.get("content-type"), bytes, {
    findDuplicates: directive !== "Ignore",
    protobuf: hasProtobuf(want, expectedKind),
    yaml: ctx.yamlDecoder,
    kind: expectedKind,
  });
  const value = decoded.value;
  if (!isObject(value)) {
    throw StatusError.badRequest("the body of the request must be a JSON or YAML object");
  }
  const accepted = (v: unknown) =>
    v === want || expected?.alsoApiVersions?.includes(String(v)) === true;
  if (value.apiVersion !== undefined && !accepted(value.apiVersion)) {
    throw StatusError.badRequest(
      `the API version in the data (${value.apiVersion}) does not match the expected API version (${want})`,
    );
  }
  if (value.kind !== undefined && value.kind !== expectedKind) {
    throw StatusError.badRequest(
      `the kind in the data (${value.kind}) does not match the expected kind (${expectedKind})`,
    );
  }
  if (value.metadata === undefined || value.metadata === null) value.metadata = {};
  const group = want.includes("/") ? want.slice(0, want.indexOf("/")) : "";
  const version = want.slice(want.indexOf("/") + 1);
  if (!isObject(value.metadata)) {
    throw StatusError.invalid({ group, kind: expectedKind }, "", [
      typeInvalid("metadata", value.metadata, "must be an object"),
    ]);
  }
  const model = builtinSchemaModel();
  const warnings = applyFieldValidation({
    model,
    type: model.kind(group, version, expectedKind),
    value,
    duplicates: decoded.duplicates,
    directive,
    kind: { group, kind: expectedKind },
    // Bodies of virtual kinds and subresource requests (reviews, TokenRequest) are requests,
    // not objects: what they omit is defaulted.
    required: !(ctx.store.def.virtual || expected),
    pruned: expected ? undefined : def.pruneUnknownFields?.(value as KubeObject),
  });
  for (const w of warnings) ctx.warnings.push(warningHeader(w));
  return value as KubeObject;
}
