/**
 * The serving certificate from the cluster (the kubelet's `serverTLSBootstrap`): the agent
 * requests a `kubernetes.io/kubelet-serving` certificate for its host names and addresses
 * (approved by an administrator, or by the API server with `--auto-approve-node-serving`),
 * keeps it in `<root-dir>/pki/nodeagent-server-current.pem` (0600), serves it as soon as it is
 * issued and renews it at 70-90% of its lifetime, without closing any connection.
 *
 * @module
 */
import { join } from "node:path";
import type { RestClient } from "../../shared/client/rest_client.ts";
import type { HttpsServer } from "../../shared/http/https_server.ts";
import type { Logger } from "../../shared/log/mod.ts";
import { pemDecodeAll, pemEncode } from "../../shared/pki/pem.ts";
import { writePrivateFile } from "../../shared/pki/write_private_file.ts";
import { CertRotation } from "./client_cert_rotation.ts";

/** Options of the serving certificate's rotation. */
export interface ServingRotationOptions {
  client: RestClient;
  server: HttpsServer;
  rootDir: string;
  nodeName: string;
  dnsNames: string[];
  ipAddresses: string[];
  logger?: Logger;
}

/** Loads the stored serving pair, installs it, and keeps it renewed. */
export async function servingCertRotation(o: ServingRotationOptions): Promise<CertRotation> {
  const file = join(o.rootDir, "pki", "nodeagent-server-current.pem");
  let current: string | undefined;
  const stored = await Deno.readTextFile(file).catch(() => undefined);
  if (stored) {
    const blocks = pemDecodeAll(stored);
    const cert = blocks.find((b) => b.label === "CERTIFICATE");
    const key = blocks.find((b) => b.label.endsWith("PRIVATE KEY"));
    if (cert && key) {
      current = pemEncode("CERTIFICATE", cert.der);
      o.server.setCertificate?.(current, pemEncode(key.label, key.der));
    }
  }
  return new CertRotation({
    name: "serving",
    client: o.client,
    subject: {
      commonName: `system:node:${o.nodeName}`,
      organizations: ["system:nodes"],
      dnsNames: o.dnsNames,
      ipAddresses: o.ipAddresses,
    },
    signerName: "kubernetes.io/kubelet-serving",
    usages: ["digital signature", "server auth"],
    current: () => current,
    receivedAt: async () => (await Deno.stat(file).catch(() => undefined))?.mtime?.getTime(),
    async install(issued) {
      await Deno.mkdir(join(o.rootDir, "pki"), { recursive: true, mode: 0o700 });
      await writePrivateFile(file, `${issued.certPem.trim()}\n${issued.keyPem.trim()}\n`, 0o600);
      o.server.setCertificate?.(issued.certPem, issued.keyPem);
      current = issued.certPem;
    },
    logger: o.logger,
  });
}
