/**
 * Validation of CertificateSigningRequests as Kubernetes 1.32's certificates validation does it:
 * the request must be a signed PKCS#10 `CERTIFICATE REQUEST`, usages known and unique, the signer
 * name qualified, conditions well formed, and an issued certificate PEM `CERTIFICATE` blocks.
 * Updates may not remove Approved/Denied/Failed conditions; approval conditions change only
 * through `/approval` and the certificate only through `/status`, once.
 *
 * @module
 */
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import {
  duplicate,
  forbidden,
  invalid,
  notSupported,
  required,
} from "../../../../shared/api/validation/field_errors.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { certificateRequestProblem } from "../../../../shared/pki/parse_certificate_request.ts";
import { certificateBundleProblem } from "./certificate_bundle.ts";
import { validateSignerName } from "./signer_name.ts";
import { base64Bytes, conditionsOf, specOf, statusOf } from "./csr_fields.ts";

/** The key usages a request may ask for, sorted as Kubernetes lists them. */
export const KEY_USAGES: readonly string[] = [
  "any",
  "cert sign",
  "client auth",
  "code signing",
  "content commitment",
  "crl sign",
  "data encipherment",
  "decipher only",
  "digital signature",
  "email protection",
  "encipher only",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "key agreement",
  "key encipherment",
  "microsoft sgc",
  "netscape sgc",
  "ocsp signing",
  "s/mime",
  "server auth",
  "signing",
  "timestamping",
];

const LEGACY_UNKNOWN_SIGNER = "kubernetes.io/legacy-unknown";
const TRUE_ONLY = new Set(["Approved", "Denied", "Failed"]);

/** What an update may change, and what the stored object already tolerates. */
interface Options {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

function hasDuplicates(values: unknown[]): boolean {
  return new Set(values.map((v) => JSON.stringify(v))).size !== values.length;
}

function usagesOf(obj: KubeObject): unknown[] {
  const u = specOf(obj).usages;
  return Array.isArray(u) ? u : [];
}

function optionsFor(obj: KubeObject, old: KubeObject | undefined): Options {
  const types = old ? conditionsOf(old).map((c) => c.type) : [];
  const oldUsages = old ? usagesOf(old) : [];
  const oldCert = old ? statusOf(old).certificate : undefined;
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: types.includes("Approved") && types.includes("Denied"),
    allowLegacySignerName: !!old && specOf(old).signerName === LEGACY_UNKNOWN_SIGNER,
    allowDuplicateConditionTypes: hasDuplicates(types),
    allowEmptyConditionType: types.some((t) => !t),
    allowArbitraryCertificate: !!old &&
      (statusOf(obj).certificate === oldCert ||
        certificateBundleProblem(base64Bytes(oldCert)) !== undefined),
    allowUnknownUsages: oldUsages.some((u) => !KEY_USAGES.includes(String(u))),
    allowDuplicateUsages: hasDuplicates(oldUsages),
  };
}

function validateUsages(obj: KubeObject, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const usages = usagesOf(obj);
  if (usages.length === 0) errs.push(required("spec.usages"));
  const seen = new Set<unknown>();
  usages.forEach((u, i) => {
    if (!opts.allowUnknownUsages && !KEY_USAGES.includes(String(u))) {
      errs.push(notSupported(`spec.usages[${i}]`, u, KEY_USAGES));
    }
    if (!opts.allowDuplicateUsages && seen.has(u)) errs.push(duplicate(`spec.usages[${i}]`, u));
    seen.add(u);
  });
  return errs;
}

function validateSpec(obj: KubeObject, opts: Options): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const request = base64Bytes(spec.request);
  const problem = certificateRequestProblem(request);
  if (problem) errs.push(invalid("spec.request", request, problem));
  errs.push(...validateUsages(obj, opts));
  const signer = typeof spec.signerName === "string" ? spec.signerName : "";
  if (!opts.allowLegacySignerName && signer === LEGACY_UNKNOWN_SIGNER) {
    errs.push(
      invalid(
        "spec.signerName",
        signer,
        "the legacy signerName is not allowed via this API version",
      ),
    );
  } else {
    errs.push(...validateSignerName("spec.signerName", signer));
  }
  const exp = spec.expirationSeconds;
  if (typeof exp === "number" && exp < 600) {
    errs.push(
      invalid(
        "spec.expirationSeconds",
        exp,
        "may not specify a duration less than 600 seconds (10 minutes)",
      ),
    );
  }
  return errs;
}

function validateConditions(obj: KubeObject, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<unknown>();
  let approved = false, denied = false;
  conditionsOf(obj).forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    if (!opts.allowEmptyConditionType && !c.type) errs.push(required(`${path}.type`));
    const allowed = TRUE_ONLY.has(String(c.type)) ? ["True"] : ["False", "True", "Unknown"];
    if (!c.status) errs.push(required(`${path}.status`));
    else if (!allowed.includes(String(c.status))) {
      errs.push(notSupported(`${path}.status`, c.status, allowed));
    }
    if (!opts.allowBothApprovedAndDenied) {
      const clash = (c.type === "Approved" && denied) || (c.type === "Denied" && approved);
      if (c.type === "Approved") approved = true;
      if (c.type === "Denied") denied = true;
      if (clash) {
        errs.push(
          invalid(`${path}.type`, c.type, "Approved and Denied conditions are mutually exclusive"),
        );
      }
    }
    if (!opts.allowDuplicateConditionTypes && seen.has(c.type)) {
      errs.push(duplicate(`${path}.type`, c.type));
    }
    seen.add(c.type);
  });
  return errs;
}

function validateObject(obj: KubeObject, opts: Options): FieldError[] {
  const errs = [...validateSpec(obj, opts), ...validateConditions(obj, opts)];
  if (!opts.allowArbitraryCertificate) {
    const problem = certificateBundleProblem(base64Bytes(statusOf(obj).certificate));
    if (problem) errs.push(invalid("status.certificate", "<certificate data>", problem));
  }
  return errs;
}

/** Validates a new CertificateSigningRequest. */
export function validateCsrCreate(obj: KubeObject): FieldError[] {
  return validateObject(obj, optionsFor(obj, undefined));
}

/** Which subresource an update comes through. */
export type CsrUpdatePath = "main" | "status" | "approval";

function typed(obj: KubeObject, type: string) {
  return conditionsOf(obj).filter((c) => c.type === type);
}

function validateConditionChanges(
  obj: KubeObject,
  old: KubeObject,
  opts: Options,
): FieldError[] {
  const errs: FieldError[] = [];
  for (const t of ["Approved", "Denied", "Failed"]) {
    if (typed(obj, t).length < typed(old, t).length) {
      errs.push(
        forbidden("status.conditions", `updates may not remove a condition of type "${t}"`),
      );
    }
  }
  if (opts.allowSettingApprovalConditions) return errs;
  for (const t of ["Approved", "Denied"]) {
    const [now, before] = [typed(obj, t), typed(old, t)];
    if (now.length > before.length) {
      errs.push(forbidden("status.conditions", `updates may not add a condition of type "${t}"`));
    } else if (now.length === before.length && !deepEqual(now, before)) {
      errs.push(
        forbidden("status.conditions", `updates may not modify a condition of type "${t}"`),
      );
    }
  }
  return errs;
}

/** Validates an update through the main resource, `/status` or `/approval`. */
export function validateCsrUpdate(
  obj: KubeObject,
  old: KubeObject,
  path: CsrUpdatePath,
): FieldError[] {
  const opts = optionsFor(obj, old);
  opts.allowSettingCertificate = path === "status";
  opts.allowSettingApprovalConditions = path === "approval";
  const errs = [...validateObject(obj, opts), ...validateConditionChanges(obj, old, opts)];
  const [cert, oldCert] = [statusOf(obj).certificate ?? "", statusOf(old).certificate ?? ""];
  if (cert !== oldCert) {
    if (!opts.allowSettingCertificate) {
      errs.push(forbidden("status.certificate", "updates may not set certificate content"));
    } else if (oldCert !== "") {
      errs.push(
        forbidden("status.certificate", "updates may not modify existing certificate content"),
      );
    }
  }
  return errs;
}
