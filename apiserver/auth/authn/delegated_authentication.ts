/**
 * Extension-server mode's authentication (`--authentication-kubeconfig`): the main server's
 * address and credential for TokenReview, and what its `extension-apiserver-authentication`
 * ConfigMap says where the flags say nothing (kube's delegating authentication: the lookup runs
 * unless `--authentication-skip-lookup`, and only for a missing `--requestheader-client-ca-file`
 * or `--client-ca-file`; a failed lookup stops the start unless
 * `--authentication-tolerate-lookup-failure`).
 *
 * @module
 */
import { type ClientConfig, loadKubeconfig } from "../../../shared/client/kubeconfig.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import type { AuthenticationOptions } from "./authentication_options.ts";
import {
  type LookedUpAuthentication,
  lookupExtensionAuthentication,
} from "./extension_authentication_lookup.ts";

/** The path TokenReviews are posted to on the main server. */
export const TOKEN_REVIEW_PATH = "/apis/authentication.k8s.io/v1/tokenreviews";

/** What the authenticator chain adds in extension-server mode. */
export interface DelegatedAuthentication {
  /** The ConfigMap's client CA and front-proxy configuration (empty when not looked up). */
  lookedUp: LookedUpAuthentication;
  /** The main server (base URL and credential) TokenReviews go to. */
  tokenReview: ClientConfig;
  /** How long TokenReview answers are cached, ms. */
  tokenCacheTtlMs: number;
}

/** The delegation flags this needs. */
export interface DelegatedAuthenticationFlags {
  authenticationKubeconfig?: string;
  skipLookup: boolean;
  tolerateLookupFailure: boolean;
  tokenCacheTtlMs: number;
}

/** Reads the kubeconfig and, when needed, the ConfigMap; undefined outside that mode. */
export async function resolveDelegatedAuthentication(
  flags: DelegatedAuthenticationFlags | undefined,
  authn: AuthenticationOptions,
  logger?: Logger,
): Promise<DelegatedAuthentication | undefined> {
  const file = flags?.authenticationKubeconfig;
  if (!flags || !file) return undefined;
  let config: ClientConfig;
  try {
    config = await loadKubeconfig(file);
  } catch (err) {
    throw new Error(`--authentication-kubeconfig: ${file}: ${(err as Error).message}`);
  }
  const out = { lookedUp: {}, tokenReview: config, tokenCacheTtlMs: flags.tokenCacheTtlMs };
  const missing = !authn.requestHeaderClientCaFile || !authn.clientCaFile;
  if (flags.skipLookup || !missing) return out;
  try {
    const found = await lookupExtensionAuthentication(config);
    out.lookedUp = {
      ...(authn.clientCaFile ? {} : { clientCaPem: found.clientCaPem }),
      ...(authn.requestHeaderClientCaFile ? {} : { requestHeader: found.requestHeader }),
    };
    return out;
  } catch (err) {
    const message = `unable to load configmap based request-header-client-ca-file: ${
      (err as Error).message
    }`;
    if (!flags.tolerateLookupFailure) throw new Error(message);
    logger?.warn(`Error looking up in-cluster authentication configuration: ${message}`);
    logger?.warn(
      "Continuing without authentication configuration. This may treat all requests as anonymous.",
    );
    logger?.warn(
      "To require authentication configuration lookup to succeed, set --authentication-tolerate-lookup-failure=false",
    );
    return out;
  }
}
