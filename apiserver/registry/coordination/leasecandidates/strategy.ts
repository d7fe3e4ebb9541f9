/**
 * LeaseCandidate (coordination.k8s.io/v1alpha2, off by default): a candidate for a coordinated
 * leader election lease. Validation and columns as kube-apiserver's.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid, notSupported, required } from "../../../../shared/api/validation/field_errors.ts";
import { isConfigMapKey, isQualifiedName } from "../../../../shared/api/validation/identifiers.ts";
import type { KindDef, TableColumns } from "../../generic/kind.ts";
import { AGE_COLUMN, ageOf, column, NAME_COLUMN, objectOf } from "../../generic/table_columns.ts";

const STRATEGIES = ["OldestEmulationVersion"];
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-.]+))?(?:\+([0-9A-Za-z-.]+))?$/;
const str = (v: unknown) => typeof v === "string" ? v : "";

/** LeaseCandidate: Name, LeaseName, BinaryVersion, EmulationVersion, Age. */
const COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    column(
      "LeaseName",
      "string",
      "LeaseName is the name of the lease for which this candidate is contending. The limits on this field are the same as on Lease.name. Multiple lease candidates may reference the same Lease.name. This field is immutable.",
    ),
    column(
      "BinaryVersion",
      "string",
      "BinaryVersion is the binary version. It must be in a semver format without leading `v`. This field is required.",
    ),
    column(
      "EmulationVersion",
      "string",
      'EmulationVersion is the emulation version. It must be in a semver format without leading `v`. EmulationVersion must be less than or equal to BinaryVersion. This field is required when strategy is "OldestEmulationVersion"',
    ),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = objectOf(o.spec);
    return [
      o.metadata?.name ?? "",
      str(spec.leaseName),
      str(spec.binaryVersion),
      str(spec.emulationVersion),
      ageOf(o, now),
    ];
  },
};

/** A semantic version's numbers, or an error message in blang/semver's words. */
function semver(v: string): number[] | string {
  const m = SEMVER.exec(v);
  if (!m) {
    return v.split(".").length !== 3
      ? "No Major.Minor.Patch elements found"
      : `Invalid character(s) found in version ${JSON.stringify(v)}`;
  }
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

function less(a: number[], b: number[]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

/** The version at `field` (empty: none), pushing its parse error onto `errs`. */
function versionAt(errs: FieldError[], field: string, v: string): number[] | undefined {
  if (v === "") return undefined;
  const parsed = semver(v);
  if (typeof parsed === "string") errs.push(invalid(field, v, parsed));
  return typeof parsed === "string" ? undefined : parsed;
}

/** ValidCoordinatedLeaseStrategy (kube names the field `strategy` twice). */
function validateStrategy(field: string, strategy: string): FieldError[] {
  if (!strategy.includes("/")) {
    return STRATEGIES.includes(strategy) ? [] : [notSupported(field, strategy, STRATEGIES)];
  }
  return isQualifiedName(strategy).map((msg) => invalid(field, strategy, msg));
}

/** ValidateLeaseCandidateSpec. */
function validateSpec(o: KubeObject): FieldError[] {
  const spec = objectOf(o.spec), errs: FieldError[] = [];
  if (str(spec.leaseName) === "") errs.push(required("spec.leaseName"));
  const emulation = str(spec.emulationVersion), binary = str(spec.binaryVersion);
  const ev = versionAt(errs, "spec.emulationVersion", emulation);
  if (binary === "") errs.push(required("spec.binaryVersion"));
  const bv = versionAt(errs, "spec.binaryVersion", binary);
  if (binary !== "" && emulation !== "" && less(bv ?? [0, 0, 0], ev ?? [0, 0, 0])) {
    errs.push(
      invalid("spec.binaryVersion", binary, "must be greater than or equal to `emulationVersion`"),
    );
  }
  const strategy = str(spec.strategy);
  if (strategy === "") errs.push(required("spec.strategy"));
  else {
    if (strategy === "OldestEmulationVersion" && (ev ?? [0, 0, 0]).every((n) => n === 0)) {
      errs.push(
        required(
          "spec.emulationVersion",
          "must be specified when `strategy` is 'OldestEmulationVersion'",
        ),
      );
    }
    errs.push(...validateStrategy("spec.strategy.strategy", strategy));
  }
  return errs;
}

/** ValidateLeaseCandidateUpdate: the lease name never changes. */
function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateSpec(o);
  const name = str(objectOf(o.spec).leaseName);
  if (name !== str(objectOf(old.spec).leaseName)) {
    errs.push(invalid("spec.leaseName", name, "field is immutable"));
  }
  return errs;
}

/** The LeaseCandidate kind. */
export const leaseCandidateKind: KindDef = {
  group: "coordination.k8s.io",
  version: "v1alpha2",
  kind: "LeaseCandidate",
  plural: "leasecandidates",
  singular: "leasecandidate",
  namespaced: true,
  // ValidLeaseCandidateName: a ConfigMap key.
  nameValidator: (name) => isConfigMapKey(name),
  strategy: { tableColumns: COLUMNS, validate: validateSpec, validateUpdate },
};
