/**
 * The CSR signer (kube-controller-manager's `csrsigning`): issues certificates for approved
 * requests to `kubernetes.io/kube-apiserver-client` and `kubernetes.io/kube-apiserver-client-
 * kubelet` with the client CA and to `kubernetes.io/kubelet-serving` with the serving CA, valid
 * `--cluster-signing-duration` or the request's `expirationSeconds` when shorter (at least 10
 * minutes), from 5 minutes before issuance. A request the signer's rules refuse gets a
 * `Failed` condition (reason `SignerValidationFailure`), as in kube.
 *
 * @module
 */
import type { Logger } from "../../../shared/log/mod.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { signCertificateRequest } from "../../../shared/pki/sign_certificate_request.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { SyncLoop } from "../bootstrap/sync_loop.ts";
import {
  apiserverClientProblem,
  kubeletClientProblem,
  kubeletServingProblem,
  SIGNERS,
} from "./csr_checks.ts";
import { condition, type CsrView, readCsr } from "./csr_read.ts";

/** A CA pair, PEM. */
export interface SigningCa {
  certPem: string;
  keyPem: string;
}

/** Options of the signer. */
export interface CsrSignerOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  /** Signs the client signers' requests. */
  clientCa: SigningCa;
  /** Signs kubelet-serving requests. */
  servingCa: SigningCa;
  /** `--cluster-signing-duration`, ms. */
  durationMs: number;
  logger?: Logger;
  now?: () => number;
}

const MIN_DURATION_MS = 10 * 60 * 1000;
const BACKDATE_MS = 5 * 60 * 1000;
const SHORT_MS = 8 * 3600 * 1000;

/** Signs approved requests of the cluster's signers. */
export class CsrSigner {
  readonly #opts: CsrSignerOptions;
  readonly #loop: SyncLoop;

  constructor(opts: CsrSignerOptions) {
    this.#opts = opts;
    const store = opts.registry.lookup("certificates.k8s.io", "v1", "certificatesigningrequests")!;
    this.#loop = new SyncLoop({
      name: "csr signer",
      feed: opts.feed,
      prefixes: [store.listPrefix("")],
      sync: () => this.sync(),
      logger: opts.logger,
    });
  }

  start(): Promise<void> {
    return this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** The validity of a certificate for `csr` (kube's duration rule). */
  durationFor(csr: CsrView): number {
    if (csr.expirationSeconds === undefined) return this.#opts.durationMs;
    const requested = csr.expirationSeconds * 1000;
    return Math.max(MIN_DURATION_MS, Math.min(requested, this.#opts.durationMs));
  }

  /** Signs every approved, unsigned request of our signers. */
  async sync(): Promise<undefined> {
    const store = this.#store();
    const list = await store.list("", { plan: { mode: "latest" } });
    for (const obj of list.items) {
      const csr = readCsr(obj);
      if (!csr.approved || csr.denied || csr.failed || csr.issued) continue;
      const ca = this.#caFor(csr.signerName);
      if (!ca) continue;
      const problem = this.#problem(csr);
      await this.#writeStatus(csr.name, (status) => {
        if (problem) {
          const conditions = Array.isArray(status.conditions) ? status.conditions : [];
          status.conditions = [
            ...conditions,
            condition("Failed", "SignerValidationFailure", problem),
          ];
          return;
        }
        status.certificate = btoa(this.#sign(csr, ca));
      });
      this.#opts.logger?.info(problem ? "refused to sign csr" : "signed csr", { name: csr.name });
    }
    return undefined;
  }

  #store() {
    return this.#opts.registry.lookup("certificates.k8s.io", "v1", "certificatesigningrequests")!;
  }

  #caFor(signerName: string): SigningCa | undefined {
    if (signerName === SIGNERS.kubeletServing) return this.#opts.servingCa;
    if (signerName === SIGNERS.client || signerName === SIGNERS.kubeletClient) {
      return this.#opts.clientCa;
    }
    return undefined;
  }

  #problem(csr: CsrView): string | undefined {
    if (!csr.request) return "unable to parse csr";
    if (csr.signerName === SIGNERS.kubeletServing) {
      return kubeletServingProblem(csr.request.names, csr.usages);
    }
    if (csr.signerName === SIGNERS.kubeletClient) {
      return kubeletClientProblem(csr.request.names, csr.usages);
    }
    return apiserverClientProblem(csr.usages);
  }

  #sign(csr: CsrView, ca: SigningCa): string {
    const now = (this.#opts.now ?? Date.now)();
    const duration = this.durationFor(csr);
    // As kube: certificates valid 8h or more end 5 minutes earlier; shorter ones do not.
    return signCertificateRequest({
      ca,
      names: csr.request!.names,
      spkiDer: csr.request!.spkiDer,
      usages: csr.usages,
      notBefore: new Date(now - BACKDATE_MS),
      notAfter: new Date(now + duration - (duration < SHORT_MS ? 0 : BACKDATE_MS)),
    });
  }

  async #writeStatus(name: string, change: (status: Record<string, unknown>) => void) {
    try {
      await this.#store().guaranteedUpdate(
        "",
        name,
        (current) => {
          if (!current) return undefined;
          const view = readCsr(current);
          if (view.issued || view.failed || !view.approved || view.denied) return undefined;
          const status = { ...(current.status as Record<string, unknown> ?? {}) };
          change(status);
          current.status = status;
          return current;
        },
        {},
        { subresource: "status" },
      );
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }
}
