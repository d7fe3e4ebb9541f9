/**
 * The admission plugins Kubernetes enables by default for CertificateSigningRequests:
 * CertificateApproval (approving or denying through `/approval` needs the `approve` verb on
 * `signers` named after the signer, or its domain's wildcard `<domain>/*`), CertificateSigning
 * (changing the certificate or conditions through `/status` needs `sign` likewise) and
 * CertificateSubjectRestriction (no `kubernetes.io/kube-apiserver-client` request for the
 * `system:masters` group). Internal writes (no user) are not checked.
 *
 * @module
 */
import type { UserInfo } from "../../../../shared/api/authentication/v1/user_info.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { deepEqual } from "../../../../shared/json/deep_equal.ts";
import { parseCertificateRequestPem } from "../../../../shared/pki/parse_certificate_request.ts";
import type { Authorizer } from "../../../auth/authz/authorizer.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../../generic/admission.ts";
import { base64Bytes, specOf, statusOf } from "./csr_fields.ts";

const GROUP = "certificates.k8s.io";
const CSRS = { group: GROUP, resource: "certificatesigningrequests" };

function isCsr(a: AdmissionAttributes): boolean {
  return a.kind.group === GROUP && a.kind.plural === "certificatesigningrequests";
}

async function mayUseSigner(
  authorizer: Authorizer | undefined,
  user: UserInfo,
  verb: string,
  signerName: string,
): Promise<boolean> {
  if (!authorizer) return false;
  const names = [signerName, `${signerName.split("/")[0]}/*`];
  for (const name of names) {
    const d = await authorizer.authorize({
      user,
      verb,
      isResourceRequest: true,
      path: "",
      apiGroup: GROUP,
      apiVersion: "*",
      resource: "signers",
      subresource: "",
      namespace: "",
      name,
    });
    if (d.decision === "allow") return true;
  }
  return false;
}

/** CertificateApproval and CertificateSigning, in one plugin. */
export function certificateSignerCheck(authorizer: () => Authorizer | undefined): AdmissionPlugin {
  return {
    name: "CertificateApproval,CertificateSigning",
    async validate(a) {
      if (!isCsr(a) || a.operation !== "UPDATE" || !a.user || !a.object || !a.oldObject) return;
      if (a.subresource === "approval") {
        const signer = String(specOf(a.object).signerName ?? "");
        if (await mayUseSigner(authorizer(), a.user, "approve", signer)) return;
        throw StatusError.forbidden(
          CSRS,
          a.name,
          `user not permitted to approve requests with signerName "${signer}"`,
        );
      }
      if (a.subresource !== "status") return;
      const [now, old] = [statusOf(a.object), statusOf(a.oldObject)];
      if (now.certificate === old.certificate && deepEqual(now.conditions, old.conditions)) return;
      const signer = String(specOf(a.oldObject).signerName ?? "");
      if (await mayUseSigner(authorizer(), a.user, "sign", signer)) return;
      throw StatusError.forbidden(
        CSRS,
        a.name,
        `user not permitted to sign requests with signerName "${signer}"`,
      );
    },
  };
}

/** CertificateSubjectRestriction. */
export function certificateSubjectRestriction(): AdmissionPlugin {
  return {
    name: "CertificateSubjectRestriction",
    validate(a) {
      if (!isCsr(a) || a.operation !== "CREATE" || a.subresource || !a.object) return;
      const spec = specOf(a.object);
      if (spec.signerName !== "kubernetes.io/kube-apiserver-client") return;
      const csr = parseCertificateRequestPem(base64Bytes(spec.request));
      if (!csr?.organizations.includes("system:masters")) return;
      throw StatusError.forbidden(
        CSRS,
        a.name,
        "use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed",
      );
    },
  };
}

/** CertificateApproval: who may approve requests of a signer (the `approval` subresource). */
export function certificateApproval(authorizer: () => Authorizer | undefined): AdmissionPlugin {
  const check = certificateSignerCheck(authorizer);
  return {
    name: "CertificateApproval",
    validate: (a) => a.subresource === "approval" ? check.validate!(a) : undefined,
  };
}

/** CertificateSigning: who may sign requests of a signer (the `status` subresource). */
export function certificateSigning(authorizer: () => Authorizer | undefined): AdmissionPlugin {
  const check = certificateSignerCheck(authorizer);
  return {
    name: "CertificateSigning",
    validate: (a) => a.subresource === "status" ? check.validate!(a) : undefined,
  };
}
