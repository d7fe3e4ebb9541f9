/**
 * VolumeAttachment (storage.k8s.io/v1): the intent to attach a volume to a node, with a status
 * subresource the attacher writes. The spec is immutable; validation and kubectl's columns as
 * kube-apiserver's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { isObject } from "../../../../shared/json/is_object.ts";
import {
  forbidden,
  invalid,
  required,
  tooLong,
} from "../../../../shared/api/validation/field_errors.ts";
import { byteLength } from "../../../../shared/api/validation/go_quote.ts";
import { isDNS1123Subdomain } from "../../../../shared/api/validation/identifiers.ts";
import { type KindDef, STATUS_SUBRESOURCE, type TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN, objectOf } from "../../generic/table_columns.ts";
import { validateCSIDriverName } from "../storage_validation.ts";

const MAX_METADATA_SIZE = 256 * 1024;
const MAX_ERROR_MESSAGE = 1024;
const ONE_OF = "must specify exactly one of inlineVolumeSpec and persistentVolumeName";

const VOLUME_ATTACHMENT_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    {
      ...column(
        "Attacher",
        "string",
        "attacher indicates the name of the volume driver that MUST handle this request.",
      ),
      format: "name",
    },
    column(
      "PV",
      "string",
      "persistentVolumeName represents the name of the persistent volume to attach.",
    ),
    column("Node", "string", "nodeName represents the node that the volume should be attached to."),
    column("Attached", "boolean", "attached indicates the volume is successfully attached."),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = objectOf(o.spec);
    return [
      o.metadata?.name ?? "",
      String(spec.attacher ?? ""),
      String(objectOf(spec.source).persistentVolumeName ?? ""),
      String(spec.nodeName ?? ""),
      objectOf(o.status).attached === true,
      ageOf(o, now),
    ];
  },
};

function validateSource(source: Record<string, unknown>): FieldError[] {
  const f = "spec.source";
  const inline = isObject(source.inlineVolumeSpec);
  const pv = source.persistentVolumeName;
  if (!inline && pv === undefined) return [required(f, ONE_OF)];
  if (inline && pv !== undefined) return [forbidden(f, ONE_OF)];
  if (pv === undefined) return [];
  const name = String(pv);
  if (name === "") {
    return [required(`${f}.persistentVolumeName`, "must specify non empty persistentVolumeName")];
  }
  return isDNS1123Subdomain(name).map((msg) => invalid(`${f}.persistentVolumeName`, name, msg));
}

function validateStatus(status: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const meta = objectOf(status.attachmentMetadata);
  let size = 0;
  for (const [k, v] of Object.entries(meta)) size += byteLength(k) + byteLength(String(v));
  if (size > MAX_METADATA_SIZE) {
    errs.push(
      tooLong(
        "status.attachmentMetadata",
        undefined,
        `may not be more than ${MAX_METADATA_SIZE} bytes`,
      ),
    );
  }
  for (const e of ["attachError", "detachError"]) {
    const message = objectOf(status[e]).message;
    if (typeof message === "string" && byteLength(message) > MAX_ERROR_MESSAGE) {
      errs.push(
        tooLong(
          `status.${e}.message`,
          undefined,
          `may not be more than ${MAX_METADATA_SIZE} bytes`,
        ),
      );
    }
  }
  return errs;
}

/** ValidateVolumeAttachment and ValidateVolumeAttachmentV1. */
function validate(o: KubeObject): FieldError[] {
  const spec = objectOf(o.spec);
  const attacher = typeof spec.attacher === "string" ? spec.attacher : "";
  const errs: FieldError[] = attacher === "" ? [required("spec.attacher")] : [];
  errs.push(...validateSource(objectOf(spec.source)));
  const node = typeof spec.nodeName === "string" ? spec.nodeName : "";
  for (const msg of isDNS1123Subdomain(node)) errs.push(invalid("spec.nodeName", node, msg));
  errs.push(...validateStatus(objectOf(o.status)));
  if (attacher !== "") errs.push(...validateCSIDriverName("spec.attacher", attacher));
  return errs;
}

/** ValidateVolumeAttachmentUpdate: the spec is read-only. */
function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = validate(o);
  if (!deepEqual(o.spec ?? null, old.spec ?? null)) {
    errs.push(invalid("spec", o.spec ?? null, "field is immutable"));
  }
  return errs;
}

/** The VolumeAttachment kind. */
export const volumeAttachmentKind: KindDef = {
  group: "storage.k8s.io",
  version: "v1",
  kind: "VolumeAttachment",
  plural: "volumeattachments",
  singular: "volumeattachment",
  namespaced: false,
  returnDeletedObject: true,
  subresources: [STATUS_SUBRESOURCE],
  strategy: {
    tableColumns: VOLUME_ATTACHMENT_COLUMNS,
    prepareForCreate(o) {
      o.status = { attached: false };
    },
    validate,
    validateUpdate,
  },
};
