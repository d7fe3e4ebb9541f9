/**
 * `apiserver token create [--ttl 24h] [--print-join-command] [--kubeconfig <path>]`, kubeadm's
 * token command: writes a bootstrap token Secret through the API (as the kubeconfig's user,
 * default `./data/admin.kubeconfig`) and prints the token, or with `--print-join-command` the
 * node agent's join command with the CA's public-key hash. `--ttl 0` never expires.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { RestClient } from "../shared/client/rest_client.ts";
import { caCertHash } from "../shared/bootstrap/ca_cert_hash.ts";
import { pemCertificates } from "../shared/pki/pem.ts";
import { tryParseDurationMs } from "../shared/time/duration.ts";
import { DEFAULT_NODE_TOKEN_GROUP } from "./controllers/bootstrap/kubeadm_policy.ts";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** A random string of `n` characters of `[a-z0-9]`. */
function randomToken(n: number): string {
  let out = "";
  while (out.length < n) {
    for (const b of crypto.getRandomValues(new Uint8Array(n))) {
      // 252 = 7 * 36: larger bytes are dropped so every character is equally likely.
      if (b < 252 && out.length < n) out += ALPHABET[b % 36];
    }
  }
  return out;
}

/** The bootstrap token Secret of `id.secret`, expiring after `ttlMs` (0: never). */
export function bootstrapTokenSecret(id: string, secret: string, ttlMs: number, now = Date.now()) {
  const data: Record<string, string> = {
    "token-id": id,
    "token-secret": secret,
    "usage-bootstrap-authentication": "true",
    "usage-bootstrap-signing": "true",
    "auth-extra-groups": DEFAULT_NODE_TOKEN_GROUP,
  };
  if (ttlMs > 0) data.expiration = new Date(now + ttlMs).toISOString().replace(/\.\d{3}Z$/, "Z");
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "bootstrap.kubernetes.io/token",
    metadata: { name: `bootstrap-token-${id}`, namespace: "kube-system" },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, btoa(v)])),
  };
}

/** Runs `token <args>`; returns the exit status. Output goes to `print`. */
export async function runTokenCommand(
  args: string[],
  print: (line: string) => void = console.log,
): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      allowPositionals: true,
      options: {
        ttl: { type: "string" },
        "print-join-command": { type: "boolean" },
        kubeconfig: { type: "string" },
      },
    });
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    return 2;
  }
  if (values.positionals[0] !== "create" || values.positionals.length > 1) {
    console.error(
      "usage: apiserver token create [--ttl 24h] [--print-join-command] [--kubeconfig path]",
    );
    return 2;
  }
  const ttlMs = tryParseDurationMs(values.values.ttl ?? "24h");
  if (ttlMs === undefined || ttlMs < 0) {
    console.error(
      `error: --ttl: must be a duration such as 24h, got ${JSON.stringify(values.values.ttl)}`,
    );
    return 2;
  }
  const client = await RestClient.fromKubeconfig(
    values.values.kubeconfig ?? "./data/admin.kubeconfig",
  );
  try {
    const id = randomToken(6);
    const token = `${id}.${randomToken(16)}`;
    await client.create(
      { version: "v1", resource: "secrets", namespace: "kube-system" },
      bootstrapTokenSecret(id, token.slice(7), ttlMs),
    );
    if (!values.values["print-join-command"]) {
      print(token);
      return 0;
    }
    const hashes = pemCertificates(client.config.caPem ?? "").map(caCertHash);
    print(
      `nodeagent --server=${await joinServer(client)} --token=${token} ${
        hashes.map((h) => `--discovery-token-ca-cert-hash=${h}`).join(" ")
      }`,
    );
    return 0;
  } finally {
    client.close();
  }
}

/** The URL nodes join: cluster-info's server, else the kubeconfig's. */
async function joinServer(client: RestClient): Promise<string> {
  try {
    const cm = await client.get({
      version: "v1",
      resource: "configmaps",
      namespace: "kube-public",
      name: "cluster-info",
    });
    const text = String((cm.data as Record<string, unknown> | undefined)?.kubeconfig ?? "");
    return /^\s*server: (\S+)$/m.exec(text)?.[1] ?? client.config.server;
  } catch {
    return client.config.server;
  }
}
