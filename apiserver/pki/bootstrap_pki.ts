/**
 * First-start PKI of the API server. Under `<dataDir>/pki/` it keeps a serving CA, the serving
 * certificate, a client CA, the administrator's client certificate and the administrator's
 * bearer token; later starts reuse them (a serving or admin certificate that expired, is about
 * to, or lacks a now-required SAN is reissued from the existing CA). With `certFile`/`keyFile`
 * the given serving pair is used instead of ours.
 *
 * @module
 */
import { createPrivateKey, createPublicKey } from "node:crypto";
import { join } from "node:path";
import {
  type CertificateAndKey,
  createCA,
  issueCertificate,
} from "../../shared/pki/issue_certificate.ts";
import { type Certificate, parseCertificate } from "../../shared/pki/parse_certificate.ts";
import { formatIpAddress, parseIpAddress } from "../../shared/pki/ip_address.ts";
import { pemCertificates, pemEncode } from "../../shared/pki/pem.ts";
import { bytesEqual, verifyCertificateSignature } from "../../shared/pki/signature.ts";
import { serverUrlFor, writeAdminKubeconfig } from "./write_admin_kubeconfig.ts";
import { writePrivateFile } from "../../shared/pki/write_private_file.ts";

/** Options of bootstrapPki(). */
export interface PkiOptions {
  /** The data directory; files go to `<dataDir>/pki/`. */
  dataDir: string;
  /** Extra subjectAltNames for the serving certificate (`--tls-san`): host names or IPs. */
  sans?: string[];
  /** A serving certificate (PEM chain) to use instead of ours (`--tls-cert-file`). */
  certFile?: string;
  /** Its private key (`--tls-private-key-file`). */
  keyFile?: string;
  /** The front-proxy client certificate to use instead of ours (`--proxy-client-cert-file`). */
  proxyClientCertFile?: string;
  /** Its private key (`--proxy-client-key-file`). */
  proxyClientKeyFile?: string;
  /** The server URL for `<dataDir>/admin.kubeconfig`; without it no kubeconfig is written. */
  serverUrl?: string;
  /** The machine's host name (default `Deno.hostname()`). */
  hostname?: string;
  /** The current time (default now). */
  now?: Date;
}

/** Everything the server and the kubeconfig need. */
export interface Pki {
  /** `<dataDir>/pki`. */
  dir: string;
  /** The serving certificate chain and key (PEM). */
  serving: CertificateAndKey;
  /** The CA that signed our serving certificate (PEM), or the CA found in `certFile`. */
  caPem?: string;
  /** Path of the serving CA certificate (`<dir>/ca.crt`). */
  caFile: string;
  /** The client CA (certificate and key), for `--client-ca-file` and signing client certs. */
  clientCa: CertificateAndKey;
  /** Path of the client CA certificate (`<dir>/client-ca.crt`). */
  clientCaFile: string;
  /** The administrator's client certificate (CN=kubernetes-admin, O=system:masters). */
  adminClient: CertificateAndKey;
  /** The administrator's bearer token (secret: never log it). */
  adminToken: string;
  /** Path of the token file. */
  adminTokenFile: string;
  /**
   * The front-proxy CA (`<dir>/front-proxy-ca.crt`): extension API servers trust it for the
   * identity headers (`--requestheader-client-ca-file`). Absent with a given proxy client pair.
   */
  frontProxyCa?: CertificateAndKey;
  /** Path of the front-proxy CA certificate, when generated. */
  frontProxyCaFile?: string;
  /**
   * The client certificate (CN=front-proxy-client) presented to extension API servers: the
   * given `--proxy-client-cert-file` pair, or ours signed by the front-proxy CA.
   */
  proxyClient: CertificateAndKey;
  /** Path of the kubeconfig, when one was written. */
  kubeconfigFile?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A certificate with less than this left is reissued on start. */
const RENEW_BEFORE_MS = 30 * DAY_MS;

async function readText(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

function firstCertificate(pem: string, path: string): Certificate {
  const [der] = pemCertificates(pem);
  if (!der) throw new Error(`${path} holds no certificate`);
  return parseCertificate(der);
}

/** Loads a CA pair, or creates it when neither file exists. */
async function loadOrCreateCA(
  dir: string,
  base: string,
  commonName: string,
  now: Date,
): Promise<CertificateAndKey> {
  const certPath = join(dir, `${base}.crt`);
  const keyPath = join(dir, `${base}.key`);
  const certPem = await readText(certPath);
  const keyPem = await readText(keyPath);
  if (certPem !== null && keyPem !== null) {
    const cert = firstCertificate(certPem, certPath);
    checkKeyMatches(cert, keyPem, keyPath);
    if (cert.notAfter.getTime() < now.getTime()) {
      throw new Error(
        `${certPath} expired on ${cert.notAfter.toISOString()}; remove the pki directory to start over`,
      );
    }
    return { certPem, keyPem };
  }
  if (certPem !== null) throw new Error(`${certPath} exists but its key ${keyPath} is missing`);
  const ca = await createCA(commonName, { now });
  await writePrivateFile(keyPath, ca.keyPem, 0o600);
  await writePrivateFile(certPath, ca.certPem, 0o644);
  return ca;
}

function checkKeyMatches(cert: Certificate, keyPem: string, keyPath: string): void {
  let spki: Uint8Array;
  try {
    const publicKey = createPublicKey(createPrivateKey(keyPem));
    spki = new Uint8Array(publicKey.export({ type: "spki", format: "der" }));
  } catch {
    throw new Error(`${keyPath} is not a valid private key`);
  }
  if (!bytesEqual(spki, cert.spkiDer)) {
    throw new Error(`${keyPath} does not match its certificate`);
  }
}

/** Whether a leaf can be reused: signed by `ca`, valid for a while, covering every SAN. */
function reusable(
  pair: { certPem: string; keyPem: string } | null,
  ca: Certificate,
  now: Date,
  sans: { dns: string[]; ips: string[] } | null,
  path: string,
): pair is CertificateAndKey {
  if (!pair) return false;
  let cert: Certificate;
  try {
    cert = firstCertificate(pair.certPem, path);
    checkKeyMatches(cert, pair.keyPem, path);
  } catch {
    return false;
  }
  if (!verifyCertificateSignature(cert, ca)) return false;
  if (cert.notBefore > now || cert.notAfter.getTime() - now.getTime() < RENEW_BEFORE_MS) {
    return false;
  }
  if (sans) {
    const ips = new Set(cert.ipAddresses);
    if (!sans.dns.every((d) => cert.dnsNames.includes(d))) return false;
    if (!sans.ips.every((ip) => ips.has(ip))) return false;
  }
  return true;
}

async function readPair(dir: string, base: string): Promise<CertificateAndKey | null> {
  const certPem = await readText(join(dir, `${base}.crt`));
  const keyPem = await readText(join(dir, `${base}.key`));
  return certPem !== null && keyPem !== null ? { certPem, keyPem } : null;
}

async function writePair(dir: string, base: string, pair: CertificateAndKey): Promise<void> {
  await writePrivateFile(join(dir, `${base}.key`), pair.keyPem, 0o600);
  await writePrivateFile(join(dir, `${base}.crt`), pair.certPem, 0o644);
}

/** The serving certificate's names: localhost, the loopbacks, the host name, every extra SAN. */
export function servingSans(hostname: string, extra: string[]): { dns: string[]; ips: string[] } {
  const dns = new Set<string>([
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
  ]);
  const ips = new Set<string>(["127.0.0.1", "::1"]);
  for (const name of [hostname, ...extra]) {
    const trimmed = name.trim();
    if (!trimmed) continue;
    const ip = parseIpAddress(trimmed);
    if (ip) ips.add(formatIpAddress(ip));
    else dns.add(trimmed.toLowerCase());
  }
  return { dns: [...dns], ips: [...ips] };
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Creates or loads the PKI under `<dataDir>/pki/` and writes the admin kubeconfig. */
export async function bootstrapPki(options: PkiOptions): Promise<Pki> {
  const now = options.now ?? new Date();
  const dir = join(options.dataDir, "pki");
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  await Deno.chmod(dir, 0o700);

  const ca = await loadOrCreateCA(dir, "ca", "kubernetes-ca", now);
  const clientCa = await loadOrCreateCA(dir, "client-ca", "kubernetes-client-ca", now);
  const caCert = firstCertificate(ca.certPem, "ca.crt");
  const clientCaCert = firstCertificate(clientCa.certPem, "client-ca.crt");

  const { serving, caPem } = await servingCertificate(options, dir, ca, caCert, now);
  const adminClient = await adminClientCertificate(dir, clientCa, clientCaCert, now);
  const adminTokenFile = join(dir, "admin.token");
  const adminToken = await loadOrCreateAdminToken(adminTokenFile);
  const frontProxy = await frontProxyClient(options, dir, now);

  const pki: Pki = {
    dir,
    serving,
    caPem,
    caFile: join(dir, "ca.crt"),
    clientCa,
    clientCaFile: join(dir, "client-ca.crt"),
    adminClient,
    adminToken,
    adminTokenFile,
    ...frontProxy,
  };
  if (options.serverUrl) {
    pki.kubeconfigFile = join(options.dataDir, "admin.kubeconfig");
    await writeAdminKubeconfig(pki.kubeconfigFile, {
      server: options.serverUrl,
      caPem,
      token: adminToken,
    });
  }
  return pki;
}

/** The serving certificate (given or generated) and the CA a kubeconfig should trust. */
async function servingCertificate(
  options: PkiOptions,
  dir: string,
  ca: CertificateAndKey,
  caCert: Certificate,
  now: Date,
): Promise<{ serving: CertificateAndKey; caPem: string | undefined }> {
  if (options.certFile || options.keyFile) return await givenServingCertificate(options);
  return {
    serving: await generatedServingCertificate(options, dir, ca, caCert, now),
    caPem: ca.certPem,
  };
}

/**
 * The serving certificate of `--tls-cert-file` and `--tls-private-key-file`, and its chain's
 * self-signed root (the kubeconfig's CA), if any.
 */
async function givenServingCertificate(
  options: PkiOptions,
): Promise<{ serving: CertificateAndKey; caPem: string | undefined }> {
  if (!options.certFile || !options.keyFile) {
    throw new Error("--tls-cert-file and --tls-private-key-file must be given together");
  }
  const certPem = await Deno.readTextFile(options.certFile);
  const keyPem = await Deno.readTextFile(options.keyFile);
  checkKeyMatches(firstCertificate(certPem, options.certFile), keyPem, options.keyFile);
  return { serving: { certPem, keyPem }, caPem: selfSignedRoot(certPem) };
}

/** The generated serving certificate: reused while valid for the names, else issued anew. */
async function generatedServingCertificate(
  options: PkiOptions,
  dir: string,
  ca: CertificateAndKey,
  caCert: Certificate,
  now: Date,
): Promise<CertificateAndKey> {
  const hostname = options.hostname ?? safeHostname();
  const sans = servingSans(hostname, options.sans ?? []);
  const existing = await readPair(dir, "apiserver");
  if (reusable(existing, caCert, now, sans, "apiserver.crt")) return existing;
  const serving = await issueCertificate({
    ca,
    commonName: "kube-apiserver",
    dnsNames: sans.dns,
    ipAddresses: sans.ips,
    usages: "server",
    validDays: 365,
    now,
  });
  await writePair(dir, "apiserver", serving);
  return serving;
}

/** The admin's client certificate (`system:masters`): reused while valid, else issued anew. */
async function adminClientCertificate(
  dir: string,
  clientCa: CertificateAndKey,
  clientCaCert: Certificate,
  now: Date,
): Promise<CertificateAndKey> {
  const existing = await readPair(dir, "admin");
  if (reusable(existing, clientCaCert, now, null, "admin.crt")) return existing;
  const adminClient = await issueCertificate({
    ca: clientCa,
    commonName: "kubernetes-admin",
    organizations: ["system:masters"],
    usages: "client",
    validDays: 365,
    now,
  });
  await writePair(dir, "admin", adminClient);
  return adminClient;
}

/**
 * The front-proxy client pair: the given files, or a certificate (CN=front-proxy-client)
 * signed by the front-proxy CA under `dir`, reused while valid, else issued anew.
 */
async function frontProxyClient(
  options: PkiOptions,
  dir: string,
  now: Date,
): Promise<Pick<Pki, "frontProxyCa" | "frontProxyCaFile" | "proxyClient">> {
  if (options.proxyClientCertFile || options.proxyClientKeyFile) {
    const { proxyClientCertFile: certFile, proxyClientKeyFile: keyFile } = options;
    if (!certFile || !keyFile) {
      throw new Error(
        "--proxy-client-cert-file and --proxy-client-key-file must be given together",
      );
    }
    const certPem = await Deno.readTextFile(certFile);
    const keyPem = await Deno.readTextFile(keyFile);
    checkKeyMatches(firstCertificate(certPem, certFile), keyPem, keyFile);
    return { proxyClient: { certPem, keyPem } };
  }
  const ca = await loadOrCreateCA(dir, "front-proxy-ca", "front-proxy-ca", now);
  const caCert = firstCertificate(ca.certPem, "front-proxy-ca.crt");
  const frontProxyCaFile = join(dir, "front-proxy-ca.crt");
  const existing = await readPair(dir, "front-proxy-client");
  if (reusable(existing, caCert, now, null, "front-proxy-client.crt")) {
    return { frontProxyCa: ca, frontProxyCaFile, proxyClient: existing };
  }
  const proxyClient = await issueCertificate({
    ca,
    commonName: "front-proxy-client",
    usages: "client",
    validDays: 365,
    now,
  });
  await writePair(dir, "front-proxy-client", proxyClient);
  return { frontProxyCa: ca, frontProxyCaFile, proxyClient };
}

/** The admin bearer token in `file`, written anew when missing or too short. */
async function loadOrCreateAdminToken(file: string): Promise<string> {
  let adminToken = (await readText(file))?.trim() ?? "";
  if (adminToken.length < 32) {
    adminToken = randomToken();
    await writePrivateFile(file, `${adminToken}\n`, 0o600);
  }
  return adminToken;
}

function safeHostname(): string {
  try {
    return Deno.hostname();
  } catch {
    return "";
  }
}

/** The last certificate of a chain when it is self-signed (usable as the kubeconfig's CA). */
function selfSignedRoot(chainPem: string): string | undefined {
  const ders = pemCertificates(chainPem);
  const last = ders.at(-1);
  if (!last) return undefined;
  const cert = parseCertificate(last);
  if (!bytesEqual(cert.subjectDer, cert.issuerDer) || !verifyCertificateSignature(cert, cert)) {
    return undefined;
  }
  return pemEncode("CERTIFICATE", last);
}

export { serverUrlFor };
