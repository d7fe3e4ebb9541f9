/**
 * Certificate rotation (the kubelet's `rotateCertificates` and `serverTLSBootstrap`): at a
 * random moment between 70% and 90% of the current certificate's lifetime the agent requests a
 * new one (as the node itself) and installs it: the client certificate into its kubeconfig and
 * REST client, the serving certificate into its HTTPS server. Requests, watches and connections
 * in progress finish on what they started with.
 *
 * @module
 */
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { Logger } from "../../shared/log/mod.ts";
import type { RequestSubject } from "../../shared/pki/create_certificate_request.ts";
import { type IssuedCertificate, requestCertificate } from "./request_certificate.ts";
import { certificateValidity, NODE_CLIENT } from "./tls_bootstrap.ts";
import { writeKubeconfig } from "./write_kubeconfig.ts";

/** The moment to renew a certificate valid from `notBefore` to `notAfter`. */
export function renewalTime(notBefore: Date, notAfter: Date, random = Math.random()): number {
  const start = notBefore.getTime();
  const life = notAfter.getTime() - start;
  return start + life * (0.7 + 0.2 * random);
}

/** What a rotation renews and how it installs the result. */
export interface CertRotationOptions {
  /** What it is called in logs. */
  name: string;
  client: RestClient;
  subject: RequestSubject;
  signerName: string;
  usages: string[];
  /** The certificate in use (PEM), undefined when there is none yet (renew at once). */
  current(): string | undefined;
  /** When the current certificate was received (ms), if known. */
  receivedAt?(): Promise<number | undefined>;
  /** Puts a new certificate to use. */
  install(issued: IssuedCertificate): Promise<void>;
  logger?: Logger;
  /** Retry delay after a failed renewal, ms (default 10 s). */
  retryMs?: number;
}

/** Renews a certificate before it expires, again and again, until stopped. */
export class CertRotation {
  readonly #o: CertRotationOptions;
  #timer?: ReturnType<typeof setTimeout>;
  #stopped = false;
  /** How many times the certificate was renewed. */
  renewals = 0;

  constructor(o: CertRotationOptions) {
    this.#o = o;
  }

  /**
   * Schedules the next renewal. The lifetime counts from when the certificate was received
   * when that is later than its backdated notBefore, so short certificates are not renewed at
   * once.
   */
  async start(receivedAt?: number): Promise<void> {
    if (this.#stopped) return;
    const validity = certificateValidity(this.#o.current());
    if (!validity) return this.#schedule(0);
    const got = receivedAt ?? await this.#o.receivedAt?.() ?? 0;
    const from = new Date(Math.max(validity.notBefore.getTime(), got));
    this.#schedule(Math.max(0, renewalTime(from, validity.notAfter) - Date.now()));
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
    const o = this.#o;
    try {
      const issued = await requestCertificate({
        client: o.client,
        subject: o.subject,
        signerName: o.signerName,
        usages: o.usages,
        timeoutMs: 24 * 3600_000,
      });
      if (this.#stopped) return;
      await o.install(issued);
      this.renewals++;
      o.logger?.info(`${o.name} certificate rotated`, { csr: issued.csrName });
      await this.start(Date.now());
    } catch (err) {
      o.logger?.error(`${o.name} certificate rotation failed`, { err: String(err) });
      if (!this.#stopped) this.#schedule(o.retryMs ?? 10_000);
    }
  }
}

/** The rotation of the agent's client certificate (kubeconfig and REST client). */
export function clientCertRotation(
  o: { client: RestClient; kubeconfig: string; nodeName: string; logger?: Logger },
): CertRotation {
  const { client } = o;
  return new CertRotation({
    name: "client",
    client,
    subject: { commonName: `system:node:${o.nodeName}`, organizations: ["system:nodes"] },
    ...NODE_CLIENT,
    current: () => client.config.clientCertPem,
    receivedAt: async () =>
      (await Deno.stat(o.kubeconfig).catch(() => undefined))?.mtime?.getTime(),
    async install(issued) {
      await writeKubeconfig(o.kubeconfig, {
        server: client.config.server,
        caPem: client.config.caPem ?? "",
        userName: "default-auth",
        user: { clientCertPem: issued.certPem, clientKeyPem: issued.keyPem },
      });
      client.rotateClientCertificate(issued.certPem, issued.keyPem);
    },
    logger: o.logger,
  });
}
