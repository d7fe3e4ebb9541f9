/**
 * Token discovery, as `kubeadm join` does it: reads `kube-public/cluster-info` anonymously
 * without trusting the server yet, checks the `jws-kubeconfig-<token id>` detached signature
 * of its `kubeconfig` with the token, checks the CA it holds against the pinned public-key
 * hashes (`sha256:<hex>` of the CA's SubjectPublicKeyInfo), then reads cluster-info again over
 * TLS verified with that CA and requires the same content.
 *
 * @module
 */
import https from "node:https";
import { parse } from "yaml";
import { detachedSignatureValid, JWS_KEY_PREFIX } from "../../shared/bootstrap/detached_jws.ts";
import { caCertHash } from "../../shared/bootstrap/ca_cert_hash.ts";
import { pemCertificates } from "../../shared/pki/pem.ts";
import { RestClient } from "../../shared/client/rest_client.ts";
import { isObject } from "../../shared/json/is_object.ts";
import type { Logger } from "../../shared/log/mod.ts";

const CLUSTER_INFO_PATH = "/api/v1/namespaces/kube-public/configmaps/cluster-info";

/** What joining needs. */
export interface DiscoveryOptions {
  /** `https://host:port` of the API server. */
  server: string;
  /** `<id>.<secret>` (never logged). */
  token: string;
  /** `sha256:<hex>` pins of the CA's public key. */
  caCertHashes: string[];
  /** `--discovery-token-unsafe-skip-ca-verification`. */
  unsafeSkipCaVerification?: boolean;
  logger?: Logger;
}

/** The cluster found: its URL and CA (PEM). */
export interface DiscoveredCluster {
  server: string;
  caPem: string;
}

/** GET `url` over TLS without verifying the server (what the pins and JWS are for). */
function insecureGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: "GET", rejectUnauthorized: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => body += c);
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.setTimeout(30_000, () => req.destroy(new Error("timed out reading cluster-info")));
    req.end();
  });
}

/** The `kubeconfig` value and the token's signature of a cluster-info ConfigMap. */
function signedContent(body: string, tokenId: string): { content: string; jws?: string } {
  const cm = JSON.parse(body);
  const data = isObject(cm) && isObject(cm.data) ? cm.data as Record<string, string> : {};
  if (typeof data.kubeconfig !== "string") {
    throw new Error("the cluster-info ConfigMap holds no kubeconfig");
  }
  return { content: data.kubeconfig, jws: data[`${JWS_KEY_PREFIX}${tokenId}`] };
}

/** The server and CA of cluster-info's kubeconfig. */
function clusterOf(kubeconfig: string): DiscoveredCluster {
  const doc = parse(kubeconfig) as Record<string, unknown>;
  const first = Array.isArray(doc?.clusters) ? doc.clusters[0] : undefined;
  const cluster = isObject(first) && isObject(first.cluster) ? first.cluster : {};
  const server = cluster.server;
  const caData = cluster["certificate-authority-data"];
  if (typeof server !== "string" || typeof caData !== "string") {
    throw new Error("the cluster-info kubeconfig has no server or certificate-authority-data");
  }
  return { server, caPem: atob(caData) };
}

/** Reads and verifies cluster-info; throws with a message for the person joining. */
export async function discoverCluster(o: DiscoveryOptions): Promise<DiscoveredCluster> {
  const [tokenId, tokenSecret] = o.token.split(".");
  const base = o.server.replace(/\/+$/, "");
  let res;
  try {
    res = await insecureGet(`${base}${CLUSTER_INFO_PATH}`);
  } catch (err) {
    throw new Error(`cannot reach ${base} to read cluster-info: ${(err as Error).message}`);
  }
  if (res.status !== 200) {
    throw new Error(`reading cluster-info from ${base} answered ${res.status}`);
  }
  const { content, jws } = signedContent(res.body, tokenId);
  if (!jws) {
    throw new Error(
      `there is no JWS signed token in the cluster-info ConfigMap: token id ${
        JSON.stringify(tokenId)
      } is invalid for this cluster or it has expired`,
    );
  }
  if (!detachedSignatureValid(jws, content, tokenId, tokenSecret)) {
    throw new Error(
      `failed to verify JWS signature of the cluster-info ConfigMap with token ${tokenId}`,
    );
  }
  const cluster = clusterOf(content);
  checkPins(cluster.caPem, o);
  await confirmOverVerifiedTls(base, cluster.caPem, content);
  return cluster;
}

/** Requires one of the CA's public keys to be pinned (or the unsafe skip). */
function checkPins(caPem: string, o: DiscoveryOptions): void {
  if (o.caCertHashes.length === 0) {
    if (!o.unsafeSkipCaVerification) {
      throw new Error(
        "none of --discovery-token-ca-cert-hash given: pin the cluster CA, or pass --discovery-token-unsafe-skip-ca-verification",
      );
    }
    o.logger?.warn(
      "joining without verifying the cluster CA (--discovery-token-unsafe-skip-ca-verification): anyone holding the token could impersonate the cluster",
    );
    return;
  }
  const found = pemCertificates(caPem).map(caCertHash);
  const wanted = new Set(o.caCertHashes.map((h) => h.toLowerCase()));
  if (!found.some((h) => wanted.has(h))) {
    throw new Error(
      `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys ${
        JSON.stringify(found.join(","))
      } are pinned by --discovery-token-ca-cert-hash`,
    );
  }
}

/** Reads cluster-info again, trusting only the CA found, and requires the same kubeconfig. */
async function confirmOverVerifiedTls(base: string, caPem: string, content: string) {
  const client = new RestClient({ server: base, caPem });
  try {
    const res = await client.request("GET", CLUSTER_INFO_PATH);
    if (res.status !== 200 || signedContent(res.body, "").content !== content) {
      throw new Error("cluster-info changed between the insecure and the verified read");
    }
  } finally {
    client.close();
  }
}
