/**
 * The node agent's join and bootstrap flags: `--bootstrap-kubeconfig`, `--rotate-certificates`
 * and kubeadm join's `--server`, `--token`, `--discovery-token-ca-cert-hash` (repeatable or
 * comma-separated) and `--discovery-token-unsafe-skip-ca-verification`. The token is never
 * repeated in a message.
 *
 * @module
 */

/** What joining needs (`--token` given). */
export interface JoinOptions {
  server: string;
  /** `<id>.<secret>`: never log it. */
  token: string;
  caCertHashes: string[];
  unsafeSkipCaVerification: boolean;
}

/** The bootstrap part of the agent's options. */
export interface BootstrapOptions {
  bootstrapKubeconfig?: string;
  join?: JoinOptions;
  rotateCertificates: boolean;
}

/** The flags' help. */
export const JOIN_FLAG_HELP: Record<string, string> = {
  "bootstrap-kubeconfig":
    "kubeconfig with a bootstrap token: used to request the node's client certificate when --kubeconfig is missing or expired",
  "rotate-certificates":
    "renew the client certificate at 70-90% of its lifetime (default true with a bootstrap)",
  "server": "join: the API server URL (https://host:port)",
  "token": "join: the bootstrap token <id>.<secret>",
  "discovery-token-ca-cert-hash": "join: sha256:<hex> of the cluster CA's public key (repeatable)",
  "discovery-token-unsafe-skip-ca-verification": "join: do not pin the cluster CA (unsafe)",
};

const BOOL_FLAGS = ["--discovery-token-unsafe-skip-ca-verification", "--rotate-certificates"];

/** Rewrites bare boolean flags to `=true`. */
export function normalizeJoinFlags(args: string[]): string[] {
  return args.map((a) => BOOL_FLAGS.includes(a) ? `${a}=true` : a);
}

function bool(flag: string, text: string | undefined, fallback: boolean, errors: string[]) {
  if (text === undefined) return fallback;
  if (text === "true" || text === "false") return text === "true";
  errors.push(`--${flag}: must be true or false, got ${JSON.stringify(text)}`);
  return fallback;
}

/** Reads the bootstrap and join flags; problems go to `errors`. */
export function joinOptionsFromFlags(
  str: (name: string) => string | undefined,
  hashes: string[],
  errors: string[],
): BootstrapOptions {
  const bootstrapKubeconfig = str("bootstrap-kubeconfig");
  const token = str("token");
  const skip = bool(
    "discovery-token-unsafe-skip-ca-verification",
    str("discovery-token-unsafe-skip-ca-verification"),
    false,
    errors,
  );
  let join: JoinOptions | undefined;
  if (token !== undefined) {
    if (!/^[a-z0-9]{6}\.[a-z0-9]{16}$/.test(token)) {
      errors.push("--token: must be of the form [a-z0-9]{6}.[a-z0-9]{16}");
    }
    const server = str("server") ?? "";
    if (!/^https:\/\/[^/]+/.test(server)) {
      errors.push("--server: required with --token, an https:// URL");
    }
    const caCertHashes = hashes.flatMap((h) => h.split(",")).map((h) => h.trim()).filter((h) => h);
    for (const h of caCertHashes) {
      if (!/^sha256:[0-9a-fA-F]{64}$/.test(h)) {
        errors.push(
          `--discovery-token-ca-cert-hash: ${JSON.stringify(h)} is not sha256:<64 hex digits>`,
        );
      }
    }
    if (caCertHashes.length === 0 && !skip) {
      errors.push(
        "--discovery-token-ca-cert-hash: required with --token (or --discovery-token-unsafe-skip-ca-verification)",
      );
    }
    join = { server, token, caCertHashes, unsafeSkipCaVerification: skip };
  } else if (str("server") !== undefined) errors.push("--server: only with --token");
  const rotateCertificates = bool(
    "rotate-certificates",
    str("rotate-certificates"),
    !!(join || bootstrapKubeconfig),
    errors,
  );
  return { bootstrapKubeconfig, join, rotateCertificates };
}
