/** A throwaway CA and serving certificate for localhost and 127.0.0.1, and a server using them, for HTTPS tests. */
import {
  type HttpsHandler,
  type HttpsServer,
  serveHttps,
  type ServeHttpsOptions,
} from "../../shared/http/https_server.ts";
import { createCA, issueCertificate } from "../../shared/pki/issue_certificate.ts";

/** Creates a CA named `test-ca` and a serving certificate it signed. */
export async function servingPki() {
  const ca = await createCA("test-ca");
  const serving = await issueCertificate({
    ca,
    commonName: "server",
    dnsNames: ["localhost"],
    ipAddresses: ["127.0.0.1"],
    usages: "server",
  });
  return { ca, serving };
}

/**
 * Runs `fn` against serveHttps() on a free loopback port with `serving`'s certificate (no
 * client certificate asked for and errors and warnings swallowed unless `extra` says
 * otherwise), and
 * closes the server afterwards.
 */
export async function withHttpsServer(
  serving: { certPem: string; keyPem: string },
  handler: HttpsHandler,
  fn: (server: HttpsServer) => Promise<void>,
  extra: Partial<ServeHttpsOptions> = {},
): Promise<void> {
  const server = await serveHttps(handler, {
    hostname: "127.0.0.1",
    port: 0,
    certPem: serving.certPem,
    keyPem: serving.keyPem,
    requestClientCert: false,
    onError: () => {},
    onWarning: () => {},
    ...extra,
  });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}
