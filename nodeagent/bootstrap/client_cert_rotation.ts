/**
 * Client certificate rotation (the kubelet's `rotateCertificates`): at a random moment
 * between 70% and 90% of the certificate's lifetime the agent requests a new one as the node
 * itself (approved as `selfnodeclient`), writes it to its kubeconfig and switches its client
 * to it; requests and watches in progress finish on their old connections.
 *
 * @module
 */
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { requestCertificate } from "./request_certificate.ts";
import { certificateValidity, NODE_CLIENT } from "./tls_bootstrap.ts";
import { writeKubeconfig } from "./write_kubeconfig.ts";

/** Options of the rotation. */
export interface RotationOptions {
  client: RestClient;
  kubeconfig: string;
  nodeName: string;
  logger?: Logger;
  /** Retry delay after a failed renewal, ms (default 10 s). */
  retryMs?: number;
}

/** The moment to renew a certificate valid from `notBefore` to `notAfter`. */
export function renewalTime(notBefore: Date, notAfter: Date, random = Math.random()): number {
  const start = notBefore.getTime();
  const life = notAfter.getTime() - start;
  return start + life * (0.7 + 0.2 * random);
}

/** Renews the client certificate before it expires, again and again, until stopped. */
export class ClientCertRotation {
  readonly #o: RotationOptions;
  #timer?: ReturnType<typeof setTimeout>;
  #stopped = false;
  /** How many times the certificate was renewed. */
  renewals = 0;

  constructor(o: RotationOptions) {
    this.#o = o;
  }

  /**
   * Schedules the next renewal from the client's current certificate. Its lifetime counts from
   * when it was received (`receivedAt`, default the kubeconfig's modification time) when that
   * is later than its backdated notBefore, so short certificates are not renewed at once.
   */
  async start(receivedAt?: number): Promise<void> {
    if (this.#stopped) return;
    const validity = certificateValidity(this.#o.client.config.clientCertPem);
    if (!validity) return;
    const written = receivedAt ??
      (await Deno.stat(this.#o.kubeconfig).catch(() => undefined))?.mtime?.getTime() ?? 0;
    const from = new Date(Math.max(validity.notBefore.getTime(), written));
    const delay = Math.max(0, renewalTime(from, validity.notAfter) - Date.now());
    this.#schedule(delay);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(delay: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#renew(), Math.min(delay, 2 ** 31 - 1));
  }

  async #renew(): Promise<void> {
    const { client, nodeName, logger } = this.#o;
    try {
      const issued = await requestCertificate({
        client,
        subject: { commonName: `system:node:${nodeName}`, organizations: ["system:nodes"] },
        ...NODE_CLIENT,
      });
      if (this.#stopped) return;
      await writeKubeconfig(this.#o.kubeconfig, {
        server: client.config.server,
        caPem: client.config.caPem ?? "",
        userName: "default-auth",
        user: { clientCertPem: issued.certPem, clientKeyPem: issued.keyPem },
      });
      client.rotateClientCertificate(issued.certPem, issued.keyPem);
      this.renewals++;
      logger?.info("client certificate rotated", { csr: issued.csrName });
      await this.start(Date.now());
    } catch (err) {
      logger?.error("client certificate rotation failed", { err: String(err) });
      if (!this.#stopped) this.#schedule(this.#o.retryMs ?? 10_000);
    }
  }
}
