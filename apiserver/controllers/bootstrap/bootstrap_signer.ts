/**
 * The bootstrap signer (kube-controller-manager's `bootstrapsigner`): keeps one
 * `jws-kubeconfig-<token id>` key in `kube-public/cluster-info` per bootstrap token allowed to
 * sign (`usage-bootstrap-signing: "true"`, not expired): the detached JWS of the `kubeconfig`
 * value keyed with the token secret, as kube signs it. Keys of tokens that expired or were
 * deleted are removed. Also ensures cluster-info exists, as `kubeadm init` creates it.
 *
 * @module
 */
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import type { Logger } from "../../../shared/log/mod.ts";
import { deepEqual } from "../../../shared/json/deep_equal.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { detachedSignature, JWS_KEY_PREFIX } from "../../../shared/bootstrap/detached_jws.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import {
  listTokenSecrets,
  TOKEN_SECRETS_KEY_PREFIX,
  tokenExpired,
} from "./bootstrap_token_secrets.ts";
import { SyncLoop } from "./sync_loop.ts";

/** The namespace and name of the signed ConfigMap. */
export const CLUSTER_INFO = { namespace: "kube-public", name: "cluster-info" };

/** The kubeconfig kubeadm puts in cluster-info: one nameless cluster, no user or context. */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  const ca = btoa(caPem);
  return [
    "apiVersion: v1",
    "clusters:",
    "- cluster:",
    `    certificate-authority-data: ${ca}`,
    `    server: ${server}`,
    '  name: ""',
    "contexts: null",
    'current-context: ""',
    "kind: Config",
    "preferences: {}",
    "users: null",
    "",
  ].join("\n");
}

/**
 * Creates cluster-info with `kubeconfig` (kubeadm's step), or brings its `kubeconfig` up to date
 * when the server's URL or CA changed since (the signer then signs it anew).
 */
export async function ensureClusterInfo(registry: ResourceRegistry, kubeconfig: string) {
  const configMaps = registry.lookup("", "v1", "configmaps")!;
  await configMaps.guaranteedUpdate(
    CLUSTER_INFO.namespace,
    CLUSTER_INFO.name,
    (current) => {
      if (!current) {
        return {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: CLUSTER_INFO.name, namespace: CLUSTER_INFO.namespace },
          data: { kubeconfig },
        };
      }
      const data = (current.data ?? {}) as Record<string, string>;
      if (data.kubeconfig === kubeconfig) return undefined;
      current.data = { ...data, kubeconfig };
      return current;
    },
    {},
    { allowCreate: true },
  );
}

/** Options of the signer. */
export interface BootstrapSignerOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  logger?: Logger;
  now?: () => number;
}

/** Signs cluster-info with every signing bootstrap token. */
export class BootstrapSigner {
  readonly #opts: BootstrapSignerOptions;
  readonly #loop: SyncLoop;

  constructor(opts: BootstrapSignerOptions) {
    this.#opts = opts;
    this.#loop = new SyncLoop({
      name: "bootstrap signer",
      feed: opts.feed,
      prefixes: [
        TOKEN_SECRETS_KEY_PREFIX,
        `/registry/core/configmaps/${CLUSTER_INFO.namespace}/${CLUSTER_INFO.name}`,
      ],
      sync: () => this.sync(),
      logger: opts.logger,
    });
  }

  start(): Promise<void> {
    return this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** The signatures cluster-info should hold, by key; and when the next token expires. */
  async #wanted(content: string): Promise<{ sigs: Record<string, string>; next?: number }> {
    const now = (this.#opts.now ?? Date.now)();
    const sigs: Record<string, string> = {};
    let next: number | undefined;
    for (const t of await listTokenSecrets(this.#opts.registry)) {
      if (!t.signing || !t.id || !t.tokenSecret || tokenExpired(t, now)) continue;
      if (t.secret.metadata.deletionTimestamp) continue;
      if (t.secret.metadata.name !== `bootstrap-token-${t.id}`) continue;
      sigs[`${JWS_KEY_PREFIX}${t.id}`] = detachedSignature(content, t.id, t.tokenSecret);
      if (t.expiresAt !== undefined) next = Math.min(next ?? Infinity, t.expiresAt - now);
    }
    return { sigs, next };
  }

  /** Brings cluster-info's signatures up to date; answers when to run again. */
  async sync(): Promise<number | undefined> {
    const configMaps = this.#opts.registry.lookup("", "v1", "configmaps")!;
    let next: number | undefined;
    try {
      await configMaps.guaranteedUpdate(
        CLUSTER_INFO.namespace,
        CLUSTER_INFO.name,
        async (current) => {
          const data = (current?.data ?? {}) as Record<string, string>;
          if (!current || typeof data.kubeconfig !== "string") return undefined;
          const wanted = await this.#wanted(data.kubeconfig);
          next = wanted.next;
          const updated = withSignatures(data, wanted.sigs);
          if (deepEqual(updated, data)) return undefined;
          return { ...current, data: updated } as KubeObject;
        },
      );
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
    return next;
  }
}

/** `data` with its JWS keys replaced by `sigs`. */
function withSignatures(data: Record<string, string>, sigs: Record<string, string>) {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) if (!k.startsWith(JWS_KEY_PREFIX)) out[k] = v;
  return { ...out, ...sigs };
}
