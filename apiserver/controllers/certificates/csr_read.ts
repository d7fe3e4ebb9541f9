/**
 * A CertificateSigningRequest read for the certificate controllers: its signer, usages,
 * state and parsed request.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import {
  certificateRequestNames,
  type RequestedNames,
} from "../../../shared/pki/certificate_request_names.ts";
import { parseCertificateRequestPem } from "../../../shared/pki/parse_certificate_request.ts";
import {
  base64Bytes,
  conditionsOf,
  specOf,
  statusOf,
} from "../../registry/certificates/certificatesigningrequests/csr_fields.ts";

/** What the controllers need of a request. */
export interface CsrView {
  name: string;
  signerName: string;
  usages: string[];
  username: string;
  groups: string[];
  uid?: string;
  extra?: Record<string, string[]>;
  expirationSeconds?: number;
  approved: boolean;
  denied: boolean;
  failed: boolean;
  issued: boolean;
  /** The parsed request, undefined when it does not parse. */
  request?: { names: RequestedNames; spkiDer: Uint8Array };
}

/** Reads `csr`. */
export function readCsr(csr: KubeObject): CsrView {
  const spec = specOf(csr);
  const types = new Set(conditionsOf(csr).map((c) => c.type));
  const parsed = parseCertificateRequestPem(base64Bytes(spec.request));
  let request: CsrView["request"];
  try {
    if (parsed) {
      request = { names: certificateRequestNames(parsed.infoDer), spkiDer: parsed.spkiDer };
    }
  } catch {
    request = undefined;
  }
  const strings = (v: unknown) => Array.isArray(v) ? v.map(String) : [];
  return {
    name: csr.metadata.name ?? "",
    signerName: String(spec.signerName ?? ""),
    usages: strings(spec.usages),
    username: String(spec.username ?? ""),
    groups: strings(spec.groups),
    uid: typeof spec.uid === "string" ? spec.uid : undefined,
    extra: spec.extra as Record<string, string[]> | undefined,
    expirationSeconds: typeof spec.expirationSeconds === "number"
      ? spec.expirationSeconds
      : undefined,
    approved: types.has("Approved"),
    denied: types.has("Denied"),
    failed: types.has("Failed"),
    issued: !!statusOf(csr).certificate,
    request,
  };
}

/** A condition as the controllers add it. */
export function condition(type: string, reason: string, message: string) {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  return { type, status: "True", reason, message, lastUpdateTime: now, lastTransitionTime: now };
}
