/**
 * CertificateSigningRequest (certificates.k8s.io/v1), cluster-scoped, short name `csr`. The
 * server records the requesting user in the spec at creation (whatever the client sent), the
 * spec never changes afterwards, approval conditions change only through `/approval` and the
 * issued certificate only through `/status`. Nothing here signs: a signer (kube-controller-
 * manager's csrsigning controller in Kubernetes) writes `status.certificate`.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { UserInfo } from "../../../../shared/api/authentication/v1/user_info.ts";
import { nameIsPathSegment } from "../../../../shared/api/validation/name_validators.ts";
import { rfc3339 } from "../../generic/clock.ts";
import type { KindDef, SubresourceDef, TableColumns } from "../../generic/kind.ts";
import {
  AGE_COLUMN,
  ageOf,
  column,
  humanDuration,
  NAME_COLUMN,
} from "../../generic/table_columns.ts";
import { conditionsOf, specOf, statusOf } from "./csr_fields.ts";
import { validateCsrCreate, validateCsrUpdate } from "./validation.ts";

/** Kubernetes' summary of a request's state: Pending, Approved or Denied, then Failed, Issued. */
export function csrCondition(obj: KubeObject): string {
  const types = new Set(conditionsOf(obj).map((c) => c.type));
  let out = types.has("Denied") ? "Denied" : types.has("Approved") ? "Approved" : "Pending";
  if (types.has("Failed")) out += ",Failed";
  if (statusOf(obj).certificate) out += ",Issued";
  return out;
}

const CSR_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    AGE_COLUMN,
    column("SignerName", "string", "The requested signer, a qualified name."),
    column("Requestor", "string", "Name of requestor"),
    column("RequestedDuration", "string", "The requested duration of the certificate."),
    column("Condition", "string", "The approval state and whether a certificate was issued."),
  ],
  cells: (o, now) => {
    const spec = specOf(o);
    const exp = spec.expirationSeconds;
    return [
      o.metadata?.name ?? "",
      ageOf(o, now),
      spec.signerName ? String(spec.signerName) : "<none>",
      String(spec.username ?? ""),
      typeof exp === "number" ? humanDuration(exp * 1000) : "<none>",
      csrCondition(o),
    ];
  },
};

/** Records the requesting user in the spec, replacing whatever the client sent. */
function recordRequester(obj: KubeObject, user: UserInfo | undefined): void {
  const spec = specOf(obj);
  obj.spec = spec;
  for (const f of ["username", "uid", "groups", "extra"]) delete spec[f];
  if (!user) return;
  if (user.username) spec.username = user.username;
  if (user.uid) spec.uid = user.uid;
  if (user.groups.length > 0) spec.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) spec.extra = structuredClone(user.extra);
}

function now(): string {
  return rfc3339(Date.now());
}

/**
 * Defaults condition status to True and fills missing timestamps (lastTransitionTime is kept
 * from an old condition of the same type and status), as the CSR strategies do.
 */
function populateConditions(obj: KubeObject, old: KubeObject): void {
  const stamp = now();
  for (const c of conditionsOf(obj)) {
    if (!c.status) c.status = "True";
    if (!c.lastUpdateTime) c.lastUpdateTime = stamp;
    if (!c.lastTransitionTime) {
      const same = conditionsOf(old).find((o) =>
        o.type === c.type && o.status === c.status && o.lastTransitionTime
      );
      c.lastTransitionTime = same?.lastTransitionTime ?? stamp;
    }
  }
}

/** Puts the old instances of `type` back when the update kept their number. */
function preserveInstances(obj: KubeObject, old: KubeObject, type: string): void {
  const now = conditionsOf(obj).filter((c) => c.type === type);
  const before = conditionsOf(old).filter((c) => c.type === type);
  if (now.length !== before.length) return;
  now.forEach((c, i) => {
    for (const k of Object.keys(c)) delete c[k];
    Object.assign(c, structuredClone(before[i]));
  });
}

function withStatus(body: KubeObject, old: KubeObject, status: unknown): KubeObject {
  const next = structuredClone(old);
  next.status = status ?? {};
  next.metadata.resourceVersion = body.metadata?.resourceVersion;
  return next;
}

/** `/status`: the signer's view: the certificate and conditions other than Approved/Denied. */
const CSR_STATUS: SubresourceDef = {
  name: "status",
  verbs: ["get", "patch", "update"],
  update(body, old) {
    const next = withStatus(body, old, structuredClone(body.status));
    preserveInstances(next, old, "Approved");
    preserveInstances(next, old, "Denied");
    populateConditions(next, old);
    return next;
  },
  validateUpdate: (obj, old) => validateCsrUpdate(obj, old, "status"),
};

/** `/approval`: the approver's view: the conditions only. */
const CSR_APPROVAL: SubresourceDef = {
  name: "approval",
  verbs: ["get", "patch", "update"],
  update(body, old) {
    const conditions = structuredClone(statusOf(body).conditions);
    const next = withStatus(body, old, { ...statusOf(old) });
    if (conditions === undefined) delete statusOf(next).conditions;
    else statusOf(next).conditions = conditions;
    populateConditions(next, old);
    return next;
  },
  validateUpdate: (obj, old) => validateCsrUpdate(obj, old, "approval"),
};

/** The CertificateSigningRequest kind. */
export const certificateSigningRequestKind: KindDef = {
  group: "certificates.k8s.io",
  version: "v1",
  kind: "CertificateSigningRequest",
  plural: "certificatesigningrequests",
  singular: "certificatesigningrequest",
  shortNames: ["csr"],
  namespaced: false,
  // Kubernetes places no rule on the names of certificate requests beyond path segments.
  nameValidator: nameIsPathSegment,
  subresources: [CSR_STATUS, CSR_APPROVAL],
  strategy: {
    tableColumns: CSR_COLUMNS,
    prepareForCreate(obj, user) {
      recordRequester(obj, user);
      // Users cannot create pre-approved (or pre-issued) requests.
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      // Requests are immutable after creation, except through the subresources.
      if (old.spec === undefined) delete obj.spec;
      else obj.spec = structuredClone(old.spec);
      if (old.status === undefined) delete obj.status;
      else obj.status = structuredClone(old.status);
    },
    validate: validateCsrCreate,
    validateUpdate: (obj, old) => validateCsrUpdate(obj, old, "main"),
    selectableFields: (obj) => ({ "spec.signerName": String(specOf(obj).signerName ?? "") }),
    selectableFieldNames: ["spec.signerName"],
  },
};
