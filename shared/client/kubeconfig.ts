/**
 * Loads a standard kubeconfig file (clusters, users, contexts, current-context) and resolves
 * one context into the connection settings a RestClient needs. Relative file references are
 * resolved against the kubeconfig's directory, as kubectl does.
 *
 * @module
 */
import { dirname, isAbsolute, join } from "node:path";
import { parse } from "yaml";
import { isObject } from "../json/is_object.ts";
import { type ExecClusterInfo, type ExecConfig, parseExecConfig } from "./exec_credential.ts";

/** Connection settings for one cluster and user. */
export interface ClientConfig {
  /** The API server URL, e.g. `https://127.0.0.1:6443`. */
  server: string;
  /** CA certificates (PEM) that verify the server. */
  caPem?: string;
  /** Skip verifying the server certificate. */
  insecureSkipTlsVerify?: boolean;
  /** Bearer token. */
  token?: string;
  /** Client certificate chain (PEM). */
  clientCertPem?: string;
  /** Client private key (PEM). */
  clientKeyPem?: string;
  /** The context's default namespace, if any. */
  namespace?: string;
  /** Sent as User-Agent. */
  userAgent?: string;
  /** A client credential plugin (`user.exec`). */
  exec?: ExecConfig;
  /** What the plugin is told of the cluster with `provideClusterInfo`. */
  execCluster?: ExecClusterInfo;
}

/** Options of loadKubeconfig() and parseKubeconfig(). */
export interface KubeconfigOptions {
  /** The context to use instead of current-context (`--context`). */
  context?: string;
}

type Dict = Record<string, unknown>;

function named(list: unknown, kind: string, name: string, field: string): Dict {
  if (!Array.isArray(list)) throw new Error(`kubeconfig has no ${kind}s`);
  const entry = list.find((e) => isObject(e) && e.name === name);
  if (!entry) throw new Error(`${kind} ${JSON.stringify(name)} not found in kubeconfig`);
  const inner = (entry as Dict)[field];
  return isObject(inner) ? inner : {};
}

function str(d: Dict, key: string): string | undefined {
  const v = d[key];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") throw new Error(`kubeconfig field ${key} must be a string`);
  return v;
}

function decodeBase64(text: string, field: string): string {
  try {
    const binary = atob(text.replace(/\s+/g, ""));
    return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    throw new Error(`kubeconfig field ${field} is not valid base64`);
  }
}

/**
 * Parses kubeconfig YAML. `baseDir` resolves relative paths of `certificate-authority`,
 * `client-certificate`, `client-key` and `tokenFile`; referenced files are read.
 */
export async function parseKubeconfig(
  text: string,
  baseDir: string,
  options: KubeconfigOptions = {},
): Promise<ClientConfig> {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new Error(`kubeconfig is not valid YAML: ${err instanceof Error ? err.message : err}`);
  }
  if (!isObject(doc)) throw new Error("kubeconfig is not a mapping");
  const contextName = options.context ?? str(doc, "current-context");
  if (!contextName) throw new Error("kubeconfig has no current-context and none was given");
  const context = named(doc.contexts, "context", contextName, "context");
  const clusterName = str(context, "cluster");
  if (!clusterName) throw new Error(`context ${JSON.stringify(contextName)} names no cluster`);
  const cluster = named(doc.clusters, "cluster", clusterName, "cluster");
  const userName = str(context, "user");
  const user = userName ? named(doc.users, "user", userName, "user") : {};

  const file = (p: string) => Deno.readTextFile(isAbsolute(p) ? p : join(baseDir, p));
  const server = str(cluster, "server");
  if (!server) throw new Error(`cluster ${JSON.stringify(clusterName)} has no server`);
  const config: ClientConfig = { server };

  const caData = str(cluster, "certificate-authority-data");
  const caFile = str(cluster, "certificate-authority");
  if (caData) config.caPem = decodeBase64(caData, "certificate-authority-data");
  else if (caFile) config.caPem = await file(caFile);
  if (cluster["insecure-skip-tls-verify"] === true) config.insecureSkipTlsVerify = true;

  const token = str(user, "token");
  const tokenFile = str(user, "tokenFile");
  if (token) config.token = token;
  else if (tokenFile) config.token = (await file(tokenFile)).trim();

  const certData = str(user, "client-certificate-data");
  const certFile = str(user, "client-certificate");
  const keyData = str(user, "client-key-data");
  const keyFile = str(user, "client-key");
  if (certData) config.clientCertPem = decodeBase64(certData, "client-certificate-data");
  else if (certFile) config.clientCertPem = await file(certFile);
  if (keyData) config.clientKeyPem = decodeBase64(keyData, "client-key-data");
  else if (keyFile) config.clientKeyPem = await file(keyFile);
  if (!config.clientCertPem !== !config.clientKeyPem) {
    throw new Error(`user ${JSON.stringify(userName)} needs both a client certificate and key`);
  }
  const namespace = str(context, "namespace");
  if (namespace) config.namespace = namespace;
  execUser(config, { user, userName: userName ?? "", cluster, baseDir });
  return config;
}

/** Reads and parses a kubeconfig file. */
export async function loadKubeconfig(
  path: string,
  options: KubeconfigOptions = {},
): Promise<ClientConfig> {
  const text = await Deno.readTextFile(path);
  return await parseKubeconfig(text, dirname(path), options);
}

/** `user.exec` (with what it is told of the cluster); `auth-provider` is refused clearly. */
function execUser(
  config: ClientConfig,
  o: { user: Dict; userName: string; cluster: Dict; baseDir: string },
): void {
  const provider = o.user["auth-provider"];
  if (isObject(provider)) {
    throw new Error(
      `user ${JSON.stringify(o.userName)}: auth-provider ${
        JSON.stringify(provider.name ?? "")
      } is not supported by this client; use an exec credential plugin (user.exec)`,
    );
  }
  if (o.user.exec === undefined) return;
  config.exec = parseExecConfig(o.user.exec, o.baseDir, o.userName);
  const extensions = Array.isArray(o.cluster.extensions) ? o.cluster.extensions : [];
  const ext = extensions.find((e) =>
    isObject(e) && e.name === "client.authentication.k8s.io/exec"
  ) as Dict | undefined;
  config.execCluster = {
    server: config.server,
    ...(config.caPem ? { "certificate-authority-data": btoa(config.caPem) } : {}),
    ...(config.insecureSkipTlsVerify ? { "insecure-skip-tls-verify": true } : {}),
    ...(ext && ext.extension !== undefined ? { config: ext.extension } : {}),
  };
}
