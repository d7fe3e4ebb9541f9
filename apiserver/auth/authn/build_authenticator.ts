/**
 * Builds the server's authenticator chain from the authentication options, in Kubernetes'
 * order: authenticating proxy, client certificates, static tokens (the generated admin token
 * and `--token-auth-file`), service account tokens, bootstrap tokens, the token webhook, then
 * the rejection of unknown bearer tokens and, when enabled, anonymous. Also builds what the
 * TokenRequest and TokenReview APIs need.
 * The JWT issuers of `--authentication-config` or the `--oidc-*` flags come before the webhook;
 * the file is reloaded when it changes (authentication_config_controller.ts).
 *
 * @module
 */
import { loadKubeconfig } from "../../../shared/client/kubeconfig.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import type { Pki } from "../../pki/bootstrap_pki.ts";
import type { AuthenticationOptions } from "./authentication_options.ts";
import { type Authenticator, AuthenticatorChain } from "./authenticator.ts";
import { BootstrapTokenAuthenticator } from "./bootstrap_token.ts";
import { ClientCertificateAuthenticator } from "./client_certificate.ts";
import { type ObjectGetter, registryGetter, type StoreLookup } from "./object_getter.ts";
import { RequestHeaderAuthenticator } from "./request_header.ts";
import { loadServiceAccountKeys } from "./service_account_keys.ts";
import {
  ServiceAccountTokenAuthenticator,
  ServiceAccountTokenIssuer,
} from "./service_account_token.ts";
import {
  AnonymousAuthenticator,
  RejectUnknownBearer,
  type StaticToken,
  StaticTokenAuthenticator,
} from "./static_token.ts";
import { loadTokenFile } from "./token_file.ts";
import { WebhookTokenAuthenticator } from "./webhook_token.ts";
import { type DelegatedAuthentication, TOKEN_REVIEW_PATH } from "./delegated_authentication.ts";
import type { MetricsRegistry } from "../../metrics/mod.ts";
import { JwtAuthenticatorSet } from "./jwt_authenticator.ts";
import {
  AuthenticationConfigController,
  authenticationConfigMetrics,
} from "./authentication_config_controller.ts";

/** What buildAuthenticator() needs from the server. */
export interface AuthenticationDeps {
  pki: Pki;
  /** Stores of Secrets, ServiceAccounts, Pods and Nodes are read through it. */
  registry: StoreLookup;
  logger?: Logger;
  /** Where the JWT and reload metrics are defined (none: not exported). */
  metrics?: MetricsRegistry;
  /** Extension-server mode: TokenReview and the looked-up CAs of the main server. */
  delegated?: DelegatedAuthentication;
}

/** The server's authentication. */
export interface ServerAuthentication {
  /** Every authenticator, in order. */
  chain: AuthenticatorChain;
  /** Answers TokenReview (the chain, seen through a bearer-only request). */
  tokenReviewer: Authenticator;
  /** What serving serviceaccounts/token needs: the issuer, the object reader, the longest life. */
  tokenRequests: {
    issuer: ServiceAccountTokenIssuer;
    get: ObjectGetter;
    /** `--service-account-max-token-expiration`, seconds. */
    maxExpirationSeconds?: number;
  };
  /**
   * The CA certificates (PEM, one each) of `--client-ca-file` (or the generated client CA) and
   * `--requestheader-client-ca-file`: the TLS handshake names their subjects as acceptable
   * client certificate issuers, as kube-apiserver does.
   */
  clientCaPems: string[];
  /** Releases HTTP clients. */
  close(): void;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The client CA bundles' certificates, each as its own PEM. */
async function clientCaPems(
  opts: AuthenticationOptions,
  pki: Pki,
  delegated?: DelegatedAuthentication,
): Promise<string[]> {
  const bundles = [await readPem("--client-ca-file", opts.clientCaFile ?? pki.clientCaFile)];
  if (opts.requestHeaderClientCaFile) {
    bundles.push(
      await readPem("--requestheader-client-ca-file", opts.requestHeaderClientCaFile),
    );
  }
  const { clientCaPem, requestHeader } = delegated?.lookedUp ?? {};
  for (const pem of [clientCaPem, requestHeader?.caPem]) if (pem) bundles.push(pem);
  return [...new Set(bundles.flatMap((b) => b.match(PEM_CERTIFICATE) ?? []))];
}

async function readPem(flag: string, path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    throw new Error(`${flag}: cannot read ${path}: ${(err as Error).message}`);
  }
}

/** Builds the authenticators; throws (at start) on unreadable or invalid files. */
export async function buildAuthenticator(
  opts: AuthenticationOptions,
  deps: AuthenticationDeps,
): Promise<ServerAuthentication> {
  const { pki, registry, logger } = deps;
  const get = registryGetter(registry);
  const authenticators: Authenticator[] = [];
  const closers: (() => void)[] = [];

  const proxy = await requestHeaderAuthenticator(opts, deps.delegated);
  if (proxy) authenticators.push(proxy);
  authenticators.push(await clientCertificateAuthenticator(opts, pki, deps.delegated));
  authenticators.push(await staticTokenAuthenticator(opts, pki, logger));
  const serviceAccounts = await serviceAccountAuthentication(opts, pki, get);
  authenticators.push(serviceAccounts.authenticator);
  if (opts.enableBootstrapTokenAuth) authenticators.push(new BootstrapTokenAuthenticator(get));
  const jwt = jwtAuthenticator(opts, deps);
  if (jwt) {
    closers.push(() => jwt.close());
    authenticators.push(jwt);
  }
  const webhook = await webhookAuthenticator(opts);
  for (const w of [webhook, delegatedTokenReview(deps.delegated)]) {
    if (!w) continue;
    closers.push(() => w.close());
    authenticators.push(w);
  }

  authenticators.push(new RejectUnknownBearer());
  const tokenReviewer = new AuthenticatorChain([...authenticators]);
  const anonymous = opts.jwt.anonymous;
  if (anonymous ? anonymous.enabled : opts.anonymousAuth) {
    authenticators.push(new AnonymousAuthenticator(anonymous?.conditions.map((c) => c.path)));
  }
  const chain = new AuthenticatorChain(authenticators);

  return {
    chain,
    tokenReviewer,
    tokenRequests: {
      issuer: serviceAccounts.issuer,
      get,
      maxExpirationSeconds: opts.serviceAccountMaxTokenExpirationSeconds,
    },
    clientCaPems: await clientCaPems(opts, pki, deps.delegated),
    close() {
      for (const c of closers) c();
    },
  };
}

/**
 * The authenticating proxy, when `--requestheader-client-ca-file` is given, else as the main
 * server's ConfigMap describes it (extension-server mode).
 */
async function requestHeaderAuthenticator(
  opts: AuthenticationOptions,
  delegated?: DelegatedAuthentication,
): Promise<Authenticator | undefined> {
  const lookedUp = delegated?.lookedUp.requestHeader;
  if (!opts.requestHeaderClientCaFile) {
    return lookedUp ? new RequestHeaderAuthenticator(lookedUp) : undefined;
  }
  const caPem = await readPem("--requestheader-client-ca-file", opts.requestHeaderClientCaFile);
  return new RequestHeaderAuthenticator({
    caPem,
    allowedNames: opts.requestHeaderAllowedNames,
    usernameHeaders: opts.requestHeaderUsernameHeaders,
    groupHeaders: opts.requestHeaderGroupHeaders,
    extraHeaderPrefixes: opts.requestHeaderExtraHeadersPrefixes,
    uidHeaders: opts.requestHeaderUidHeaders,
  });
}

/**
 * Client certificates, verified by `--client-ca-file`, or by the generated client CA and (in
 * extension-server mode) the main server's published client CA.
 */
async function clientCertificateAuthenticator(
  opts: AuthenticationOptions,
  pki: Pki,
  delegated?: DelegatedAuthentication,
): Promise<Authenticator> {
  const clientCaFile = opts.clientCaFile ?? pki.clientCaFile;
  const lookedUp = delegated?.lookedUp.clientCaPem;
  const clientCaPem = await readPem("--client-ca-file", clientCaFile) +
    (lookedUp ? `\n${lookedUp}` : "");
  try {
    return new ClientCertificateAuthenticator(clientCaPem);
  } catch (err) {
    throw new Error(`--client-ca-file: ${clientCaFile}: ${(err as Error).message}`);
  }
}

/** The generated admin token and the tokens of `--token-auth-file`. */
async function staticTokenAuthenticator(
  opts: AuthenticationOptions,
  pki: Pki,
  logger: Logger | undefined,
): Promise<Authenticator> {
  const tokens: StaticToken[] = [{
    token: pki.adminToken,
    user: { username: "kubernetes-admin", groups: ["system:masters"] },
  }];
  if (opts.tokenAuthFile) {
    const file = await loadTokenFile(opts.tokenAuthFile);
    for (const w of file.warnings) logger?.warn(w);
    tokens.push(...file.tokens);
  }
  return new StaticTokenAuthenticator(tokens);
}

/** The service account token issuer and the authenticator verifying its tokens. */
async function serviceAccountAuthentication(
  opts: AuthenticationOptions,
  pki: Pki,
  get: ObjectGetter,
): Promise<{ issuer: ServiceAccountTokenIssuer; authenticator: Authenticator }> {
  const keys = await loadServiceAccountKeys({
    signingKeyFile: opts.serviceAccountSigningKeyFile,
    keyFiles: opts.serviceAccountKeyFiles,
    pkiDir: pki.dir,
  });
  const issuer = new ServiceAccountTokenIssuer(keys, {
    issuer: opts.serviceAccountIssuers[0],
    apiAudiences: opts.apiAudiences,
  });
  const authenticator = new ServiceAccountTokenAuthenticator({
    keys: keys.verification,
    issuers: opts.serviceAccountIssuers,
    apiAudiences: opts.apiAudiences,
    lookup: opts.serviceAccountLookup,
    get,
  });
  return { issuer, authenticator };
}

/** The token review webhook, when `--authentication-token-webhook-config-file` is given. */
async function webhookAuthenticator(
  opts: AuthenticationOptions,
): Promise<WebhookTokenAuthenticator | undefined> {
  if (!opts.webhookConfigFile) return undefined;
  let config;
  try {
    config = await loadKubeconfig(opts.webhookConfigFile);
  } catch (err) {
    throw new Error(
      `--authentication-token-webhook-config-file: ${opts.webhookConfigFile}: ${
        (err as Error).message
      }`,
    );
  }
  return new WebhookTokenAuthenticator({
    config,
    version: opts.webhookVersion,
    cacheTtlMs: opts.webhookCacheTtlMs,
    apiAudiences: opts.apiAudiences,
  });
}

/** TokenReview against the main server (extension-server mode), answers cached. */
function delegatedTokenReview(
  delegated?: DelegatedAuthentication,
): WebhookTokenAuthenticator | undefined {
  if (!delegated) return undefined;
  const base = delegated.tokenReview.server.replace(/\/+$/, "");
  return new WebhookTokenAuthenticator({
    config: { ...delegated.tokenReview, server: base + TOKEN_REVIEW_PATH },
    version: "v1",
    cacheTtlMs: delegated.tokenCacheTtlMs,
  });
}

/**
 * The JWT authenticators of `--authentication-config` (reloaded on change) or of the
 * `--oidc-*` flags, started; undefined when neither is given.
 */
function jwtAuthenticator(
  opts: AuthenticationOptions,
  deps: AuthenticationDeps,
): (Authenticator & { close(): void }) | undefined {
  const o = opts.jwt;
  if (!o.configFile && o.authenticators.length === 0) return undefined;
  const latency = deps.metrics?.histogram({
    name: "apiserver_authentication_jwt_authenticator_latency_seconds",
    help:
      "Latency of jwt authentication operations in seconds. This is the time spent authenticating a token for cache miss only (i.e. when the token is not found in the cache).",
    labels: ["result", "jwt_issuer_hash"],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const build = (compiled: typeof o.authenticators) =>
    new JwtAuthenticatorSet(compiled, {
      signingAlgs: o.signingAlgs,
      tuning: o.tuning,
      latency,
      onError: (message) => deps.logger?.warn(message),
    }).start();
  const initial = build(o.authenticators);
  if (!o.configFile) return initial;
  return new AuthenticationConfigController(initial, {
    options: o,
    serviceAccountIssuers: opts.serviceAccountIssuers,
    build,
    metrics: deps.metrics && authenticationConfigMetrics(deps.metrics),
    apiServerId: `apiserver-${crypto.randomUUID()}`,
    logger: deps.logger,
  }).start();
}
