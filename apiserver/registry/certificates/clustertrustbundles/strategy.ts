/**
 * ClusterTrustBundle (certificates.k8s.io/v1alpha1, off by default): a bundle of trust anchors,
 * optionally tied to a signer. Validation, update rules and columns as kube-apiserver's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid } from "../../../../shared/api/validation/field_errors.ts";
import { nameIsDNSSubdomain } from "../../../../shared/api/validation/name_validators.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { column, NAME_COLUMN, objectOf } from "../../generic/table_columns.ts";
import { validateSignerName } from "../certificatesigningrequests/signer_name.ts";
import { validateTrustBundle } from "./trust_bundle.ts";

const str = (v: unknown) => typeof v === "string" ? v : "";

/** ClusterTrustBundle: Name, SignerName. */
const COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "SignerName",
      "string",
      "signerName indicates the associated signer, if any.\n\nIn order to create or update a ClusterTrustBundle that sets signerName, you must have the following cluster-scoped permission: group=certificates.k8s.io resource=signers resourceName=<the signer name> verb=attest.",
    ),
  ],
  cells: (o) => [o.metadata?.name ?? "", str(objectOf(o.spec).signerName) || "<none>"],
};

/** ValidateClusterTrustBundleName: the name rule that follows from the signer name. */
function nameProblems(name: string, signerName: string): string[] {
  if (signerName === "") {
    if (name.includes(":")) {
      return ['ClusterTrustBundle without signer name must not have ":" in its name'];
    }
    return nameIsDNSSubdomain(name, false);
  }
  const prefix = signerName.replaceAll("/", ":") + ":";
  if (!name.startsWith(prefix)) {
    return [
      `ClusterTrustBundle for signerName ${signerName} must be named with prefix ${prefix}`,
    ];
  }
  return nameIsDNSSubdomain(name.slice(prefix.length), false);
}

/** ValidateClusterTrustBundle; the bundle is parsed unless `skipBundle`. */
function validateBundle(o: KubeObject, skipBundle = false): FieldError[] {
  const spec = objectOf(o.spec), signerName = str(spec.signerName);
  const name = o.metadata?.name ?? "";
  const errs = name === ""
    ? []
    : nameProblems(name, signerName).map((m) => invalid("metadata.name", name, m));
  if (signerName !== "") errs.push(...validateSignerName("spec.signerName", signerName));
  if (!skipBundle) errs.push(...validateTrustBundle("spec.trustBundle", str(spec.trustBundle)));
  return errs;
}

/** ValidateClusterTrustBundleUpdate: the bundle is parsed again only when it changed. */
function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const spec = objectOf(o.spec), oldSpec = objectOf(old.spec);
  const errs = validateBundle(o, spec.trustBundle === oldSpec.trustBundle);
  if (str(spec.signerName) !== str(oldSpec.signerName)) {
    errs.push(invalid("spec.signerName", str(spec.signerName), "changing signerName is forbidden"));
  }
  return errs;
}

/** The ClusterTrustBundle kind. */
export const clusterTrustBundleKind: KindDef = {
  group: "certificates.k8s.io",
  version: "v1alpha1",
  kind: "ClusterTrustBundle",
  plural: "clustertrustbundles",
  singular: "clustertrustbundle",
  namespaced: false,
  // The name rule depends on spec.signerName: validateBundle checks it.
  nameValidator: () => [],
  strategy: { tableColumns: COLUMNS, validate: (o) => validateBundle(o), validateUpdate },
};
