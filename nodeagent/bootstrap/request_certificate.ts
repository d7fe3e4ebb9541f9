/**
 * Asks the cluster for a certificate, as the kubelet's certificate manager does: a new key, a
 * CertificateSigningRequest to the given signer, then waiting until it is issued (or denied,
 * or failed). The key never leaves the agent.
 *
 * @module
 */
import type { KubeObject } from "../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../shared/errors/status_error.ts";
import type { RestClient } from "../../shared/client/rest_client.ts";
import {
  createCertificateRequest,
  type RequestSubject,
} from "../../shared/pki/create_certificate_request.ts";

const CSRS = {
  group: "certificates.k8s.io",
  version: "v1",
  resource: "certificatesigningrequests",
};

/** What to request. */
export interface CertificateRequestOptions {
  client: RestClient;
  subject: RequestSubject;
  signerName: string;
  usages: string[];
  /** How often to look for the certificate, ms (default 1 s). */
  pollMs?: number;
  /** Give up after this long, ms (default 15 minutes). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The issued certificate (PEM), its key (PEM) and the request's name. */
export interface IssuedCertificate {
  certPem: string;
  keyPem: string;
  csrName: string;
}

/** Submits a request and waits for its certificate. */
export async function requestCertificate(o: CertificateRequestOptions): Promise<IssuedCertificate> {
  const { csrPem, keyPem } = createCertificateRequest(o.subject);
  let created: KubeObject;
  try {
    created = await o.client.create(CSRS, {
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { generateName: "node-csr-" },
      spec: { request: btoa(csrPem), signerName: o.signerName, usages: o.usages },
    });
  } catch (err) {
    if (err instanceof StatusError && err.code === 401) {
      throw new Error(
        "the API server refused the credential (401 Unauthorized): the bootstrap token is invalid or has expired",
      );
    }
    throw err;
  }
  const name = created.metadata.name!;
  const deadline = Date.now() + (o.timeoutMs ?? 15 * 60_000);
  for (;;) {
    if (o.signal?.aborted) throw new Error("stopped while waiting for the certificate");
    const csr = await o.client.get({ ...CSRS, name }).catch(() => undefined);
    const status = (csr?.status ?? {}) as {
      certificate?: string;
      conditions?: { type: string; message?: string }[];
    };
    const bad = status.conditions?.find((c) => c.type === "Denied" || c.type === "Failed");
    if (bad) {
      throw new Error(
        `certificate request ${name} was ${bad.type.toLowerCase()}: ${bad.message ?? ""}`,
      );
    }
    if (status.certificate) return { certPem: atob(status.certificate), keyPem, csrName: name };
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for certificate request ${name} to be approved and issued`,
      );
    }
    await new Promise((r) => setTimeout(r, o.pollMs ?? 1000));
  }
}
