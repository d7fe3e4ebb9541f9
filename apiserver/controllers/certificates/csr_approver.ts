/**
 * The CSR approver (kube-controller-manager's `csrapproving`): approves a pending
 * `kubernetes.io/kube-apiserver-client-kubelet` request that is exactly a node client
 * certificate (subject `system:node:<name>` in `system:nodes`, no SANs, usages digital
 * signature + client auth [+ key encipherment]) once a SubjectAccessReview of its requester
 * allows `create` on `certificatesigningrequests/selfnodeclient` (a node renewing its own
 * certificate: requester = common name) or `certificatesigningrequests/nodeclient`. With
 * `--auto-approve-node-serving` it also approves a node's request for its own serving
 * certificate; otherwise those wait for `kubectl certificate approve`.
 *
 * @module
 */
import type { Logger } from "../../../shared/log/mod.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { Authorizer } from "../../auth/authz/authorizer.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import { SyncLoop } from "../bootstrap/sync_loop.ts";
import { kubeletClientProblem, kubeletServingProblem, SIGNERS } from "./csr_checks.ts";
import { condition, type CsrView, readCsr } from "./csr_read.ts";

/** Options of the approver. */
export interface CsrApproverOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  authorizer: () => Authorizer;
  /** `--auto-approve-node-serving`. */
  approveNodeServing?: boolean;
  logger?: Logger;
}

/** Auto-approves node client (and optionally serving) requests. */
export class CsrApprover {
  readonly #opts: CsrApproverOptions;
  readonly #loop: SyncLoop;

  constructor(opts: CsrApproverOptions) {
    this.#opts = opts;
    this.#loop = new SyncLoop({
      name: "csr approver",
      feed: opts.feed,
      prefixes: [this.#store().listPrefix("")],
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

  #store() {
    return this.#opts.registry.lookup("certificates.k8s.io", "v1", "certificatesigningrequests")!;
  }

  /** Approves what may be approved among the pending requests. */
  async sync(): Promise<undefined> {
    const list = await this.#store().list("", { plan: { mode: "latest" } });
    for (const obj of list.items) {
      const csr = readCsr(obj);
      if (csr.approved || csr.denied || csr.issued || !csr.request) continue;
      const message = await this.#approval(csr);
      if (message) await this.#approve(csr.name, message);
    }
    return undefined;
  }

  /** The approval message when `csr` is to be approved. */
  async #approval(csr: CsrView): Promise<string | undefined> {
    const names = csr.request!.names;
    if (csr.signerName === SIGNERS.kubeletServing) {
      if (!this.#opts.approveNodeServing || kubeletServingProblem(names, csr.usages)) return;
      if (csr.username !== names.commonName || !csr.groups.includes("system:nodes")) return;
      return "Auto approving kubelet serving certificate (--auto-approve-node-serving).";
    }
    if (csr.signerName !== SIGNERS.kubeletClient) return;
    if (kubeletClientProblem(names, csr.usages)) return;
    if (csr.username === names.commonName && await this.#allowed(csr, "selfnodeclient")) {
      return "Auto approving self kubelet client certificate after SubjectAccessReview.";
    }
    if (await this.#allowed(csr, "nodeclient")) {
      return "Auto approving kubelet client certificate after SubjectAccessReview.";
    }
    return undefined;
  }

  /** The SubjectAccessReview of the requester for `create` on the subresource. */
  async #allowed(csr: CsrView, subresource: string): Promise<boolean> {
    const d = await this.#opts.authorizer().authorize({
      user: { username: csr.username, uid: csr.uid, groups: csr.groups, extra: csr.extra },
      verb: "create",
      isResourceRequest: true,
      path: "",
      apiGroup: "certificates.k8s.io",
      apiVersion: "*",
      resource: "certificatesigningrequests",
      subresource,
      namespace: "",
      name: "",
    });
    return d.decision === "allow";
  }

  async #approve(name: string, message: string): Promise<void> {
    try {
      await this.#store().guaranteedUpdate(
        "",
        name,
        (current) => {
          if (!current) return undefined;
          const view = readCsr(current);
          if (view.approved || view.denied) return undefined;
          const status = { ...(current.status as Record<string, unknown> ?? {}) };
          const conditions = Array.isArray(status.conditions) ? status.conditions : [];
          status.conditions = [...conditions, condition("Approved", "AutoApproved", message)];
          current.status = status;
          return current;
        },
        {},
        { subresource: "approval" },
      );
      this.#opts.logger?.info("approved csr", { name });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }
}
