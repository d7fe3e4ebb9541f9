/**
 * The keys of service account tokens: one signing key (`--service-account-signing-key-file`,
 * or `<data-dir>/pki/sa.key`, an RSA key generated on first start with mode 0600) and the
 * verification keys (`--service-account-key-file`, repeatable, RSA or ECDSA public or private
 * keys or certificates in PEM, plus the signing key's own public key). Each key gets the key id
 * Kubernetes gives it: the unpadded base64url SHA-256 of its DER SubjectPublicKeyInfo.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { join } from "node:path";
import { importPKCS8, importSPKI } from "jose";
import { parseCertificate } from "../../../shared/pki/parse_certificate.ts";
import { pemDecodeAll } from "../../../shared/pki/pem.ts";
import { writePrivateFile } from "../../../shared/pki/write_private_file.ts";

/** A JWS algorithm we sign or verify with. */
export type JwsAlgorithm = "RS256" | "ES256" | "ES384" | "ES512";

/**
 * A key as jose imports it. (Spelled through jose rather than the global CryptoKey so the
 * types agree when @types/node, which redefines KeyUsage, is in the same program.)
 */
export type JoseKey = Awaited<ReturnType<typeof importSPKI>>;

/** A verification key. */
export interface VerificationKey {
  kid: string;
  alg: JwsAlgorithm;
  key: JoseKey;
}

/** The signing key. */
export interface SigningKey extends VerificationKey {
  privateKey: JoseKey;
}

/** All service account token keys. */
export interface ServiceAccountKeys {
  signing: SigningKey;
  verification: VerificationKey[];
}

function algorithmOf(key: KeyObject, source: string): JwsAlgorithm {
  if (key.asymmetricKeyType === "rsa") return "RS256";
  if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === "prime256v1" || curve === "P-256") return "ES256";
    if (curve === "secp384r1" || curve === "P-384") return "ES384";
    if (curve === "secp521r1" || curve === "P-521") return "ES512";
    throw new Error(`${source}: unsupported elliptic curve ${curve}`);
  }
  throw new Error(`${source}: unsupported key type ${key.asymmetricKeyType} (want RSA or ECDSA)`);
}

/** Kubernetes' key id: base64url(SHA-256(DER SubjectPublicKeyInfo)), unpadded. */
export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(der).digest("base64url");
}

async function verificationKey(publicKey: KeyObject, source: string): Promise<VerificationKey> {
  const alg = algorithmOf(publicKey, source);
  const pem = String(publicKey.export({ type: "spki", format: "pem" }));
  return { kid: keyIdOf(publicKey), alg, key: await importSPKI(pem, alg, { extractable: true }) };
}

/** The public keys in a PEM text (public keys, private keys, certificates). */
export function publicKeysInPem(text: string, source: string): KeyObject[] {
  let blocks;
  try {
    blocks = pemDecodeAll(text);
  } catch (err) {
    throw new Error(`${source}: ${(err as Error).message}`);
  }
  const keys: KeyObject[] = [];
  for (const b of blocks) {
    const der = Buffer.from(b.der);
    try {
      switch (b.label) {
        case "PUBLIC KEY":
          keys.push(createPublicKey({ key: der, format: "der", type: "spki" }));
          break;
        case "RSA PUBLIC KEY":
          keys.push(createPublicKey({ key: der, format: "der", type: "pkcs1" }));
          break;
        case "PRIVATE KEY":
          keys.push(createPublicKey(createPrivateKey({ key: der, format: "der", type: "pkcs8" })));
          break;
        case "RSA PRIVATE KEY":
          keys.push(createPublicKey(createPrivateKey({ key: der, format: "der", type: "pkcs1" })));
          break;
        case "EC PRIVATE KEY":
          keys.push(createPublicKey(createPrivateKey({ key: der, format: "der", type: "sec1" })));
          break;
        case "CERTIFICATE": {
          const spki = Buffer.from(parseCertificate(b.der).spkiDer);
          keys.push(createPublicKey({ key: spki, format: "der", type: "spki" }));
          break;
        }
        default:
          break; // EC PARAMETERS and the like carry no key
      }
    } catch (err) {
      throw new Error(`${source}: invalid ${b.label} block: ${(err as Error).message}`);
    }
  }
  if (keys.length === 0) throw new Error(`${source}: no public or private key found`);
  return keys;
}

/** The first private key in a PEM text. */
export function privateKeyInPem(text: string, source: string): KeyObject {
  let blocks;
  try {
    blocks = pemDecodeAll(text);
  } catch (err) {
    throw new Error(`${source}: ${(err as Error).message}`);
  }
  const types: Record<string, "pkcs8" | "pkcs1" | "sec1"> = {
    "PRIVATE KEY": "pkcs8",
    "RSA PRIVATE KEY": "pkcs1",
    "EC PRIVATE KEY": "sec1",
  };
  for (const b of blocks) {
    const type = types[b.label];
    if (!type) continue;
    try {
      return createPrivateKey({ key: Buffer.from(b.der), format: "der", type });
    } catch (err) {
      throw new Error(`${source}: invalid ${b.label} block: ${(err as Error).message}`);
    }
  }
  throw new Error(`${source}: no private key found`);
}

async function readKeyFile(path: string, flag: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    throw new Error(`${flag}: cannot read ${path}: ${(err as Error).message}`);
  }
}

/** Loads `<pkiDir>/sa.key`, generating an RSA 2048 pair (sa.key 0600, sa.pub) when missing. */
async function defaultSigningKey(pkiDir: string): Promise<{ pem: string; path: string }> {
  const path = join(pkiDir, "sa.key");
  try {
    return { pem: await Deno.readTextFile(path), path };
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = String(privateKey.export({ type: "pkcs8", format: "pem" }));
  await Deno.mkdir(pkiDir, { recursive: true, mode: 0o700 });
  await writePrivateFile(
    join(pkiDir, "sa.pub"),
    String(publicKey.export({ type: "spki", format: "pem" })),
    0o644,
  );
  await writePrivateFile(path, pem, 0o600);
  return { pem, path };
}

/** Options of loadServiceAccountKeys(). */
export interface ServiceAccountKeyOptions {
  /** `--service-account-signing-key-file`; default `<pkiDir>/sa.key` (generated). */
  signingKeyFile?: string;
  /** `--service-account-key-file` values. */
  keyFiles?: string[];
  /** Where the default key lives (`<data-dir>/pki`). */
  pkiDir: string;
}

/** Loads (or creates) the signing key and every verification key. */
export async function loadServiceAccountKeys(
  opts: ServiceAccountKeyOptions,
): Promise<ServiceAccountKeys> {
  const signingSource = opts.signingKeyFile
    ? {
      pem: await readKeyFile(opts.signingKeyFile, "--service-account-signing-key-file"),
      path: opts.signingKeyFile,
    }
    : await defaultSigningKey(opts.pkiDir);
  const priv = privateKeyInPem(signingSource.pem, signingSource.path);
  const pub = createPublicKey(priv);
  const base = await verificationKey(pub, signingSource.path);
  const pkcs8 = String(priv.export({ type: "pkcs8", format: "pem" }));
  const signing: SigningKey = { ...base, privateKey: await importPKCS8(pkcs8, base.alg) };
  const verification: VerificationKey[] = [base];
  const seen = new Set([base.kid]);
  for (const file of opts.keyFiles ?? []) {
    const text = await readKeyFile(file, "--service-account-key-file");
    for (const k of publicKeysInPem(text, file)) {
      const v = await verificationKey(k, file);
      if (seen.has(v.kid)) continue;
      seen.add(v.kid);
      verification.push(v);
    }
  }
  return { signing, verification };
}
