/**
 * The agent's serving certificate: the configured `tlsCertFile`/`tlsPrivateKeyFile`, or, like
 * the kubelet, a self-signed certificate kept at `<root-dir>/pki/nodeagent.crt` and `.key`
 * (key mode 0600) for the node's hostname and addresses, made with `openssl` on first start.
 *
 * @module
 */

/** A certificate and its key (PEM). */
export interface ServingCert {
  certPem: string;
  keyPem: string;
}

/** Options of {@link loadServingCert}. */
export interface ServingCertOptions {
  rootDir: string;
  /** Configured files (both or neither). */
  certFile?: string;
  keyFile?: string;
  /** DNS names for the self-signed certificate. */
  hostnames: string[];
  /** IP addresses for the self-signed certificate. */
  ips: string[];
}

/**
 * Loads or creates the serving certificate.
 *
 * @throws {Error} when configured files cannot be read or openssl fails.
 */
export async function loadServingCert(o: ServingCertOptions): Promise<ServingCert> {
  if (o.certFile && o.keyFile) {
    return {
      certPem: await Deno.readTextFile(o.certFile),
      keyPem: await Deno.readTextFile(o.keyFile),
    };
  }
  const dir = `${o.rootDir.replace(/\/+$/, "")}/pki`;
  const certFile = `${dir}/nodeagent.crt`, keyFile = `${dir}/nodeagent.key`;
  try {
    return {
      certPem: await Deno.readTextFile(certFile),
      keyPem: await Deno.readTextFile(keyFile),
    };
  } catch {
    // not there yet
  }
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const sans = [
    ...o.hostnames.map((h) => `DNS:${h}`),
    ...o.ips.map((ip) => `IP:${ip}`),
  ].join(",");
  const cn = `${o.hostnames[0] ?? "nodeagent"}@${Math.floor(Date.now() / 1000)}`;
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("openssl", {
      args: [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "365",
        "-subj",
        `/CN=${cn.replace(/[/\\]/g, "")}`,
        "-addext",
        `subjectAltName=${sans}`,
        "-addext",
        "basicConstraints=critical,CA:FALSE",
        "-addext",
        "keyUsage=critical,digitalSignature,keyEncipherment",
        "-addext",
        "extendedKeyUsage=serverAuth",
        "-keyout",
        `${keyFile}.tmp`,
        "-out",
        `${certFile}.tmp`,
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
  } catch (e) {
    throw new Error(
      `cannot create a self-signed serving certificate (is openssl installed?): ${
        (e as Error).message
      }; set tlsCertFile and tlsPrivateKeyFile`,
    );
  }
  if (!out.success) {
    await Deno.remove(`${keyFile}.tmp`).catch(() => {});
    throw new Error(
      `openssl failed to create the serving certificate: ${
        new TextDecoder().decode(out.stderr).trim()
      }`,
    );
  }
  await Deno.chmod(`${keyFile}.tmp`, 0o600);
  await Deno.rename(`${keyFile}.tmp`, keyFile);
  await Deno.rename(`${certFile}.tmp`, certFile);
  return { certPem: await Deno.readTextFile(certFile), keyPem: await Deno.readTextFile(keyFile) };
}
