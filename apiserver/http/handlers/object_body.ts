/** Reads an object body for create and update, checking its apiVersion and kind. */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { isObject } from "../../registry/generic/field_errors.ts";
import { apiVersionOf } from "../../registry/generic/kind.ts";
import { decodeBody, readBody } from "../body.ts";
import type { ResourceContext } from "../context.ts";

/** Reads, decodes and checks the object in a request body. */
export async function readObjectBody(
  ctx: ResourceContext,
  expected?: { apiVersion: string; kind: string },
): Promise<KubeObject> {
  const bytes = await readBody(ctx.req);
  const value = decodeBody(ctx.req.headers.get("content-type"), bytes);
  if (!isObject(value)) {
    throw StatusError.badRequest("the body of the request must be a JSON or YAML object");
  }
  const def = ctx.store.def;
  const want = expected?.apiVersion ?? apiVersionOf(def);
  const expectedKind = expected?.kind ?? def.kind;
  if (value.apiVersion !== undefined && value.apiVersion !== want) {
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
  if (!isObject(value.metadata)) {
    throw StatusError.invalid({ group: def.group, kind: def.kind }, "", [{
      type: "FieldValueTypeInvalid",
      field: "metadata",
      value: value.metadata,
      detail: "must be an object",
    }]);
  }
  return value as KubeObject;
}
