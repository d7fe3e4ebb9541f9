/**
 * The token cleaner (kube-controller-manager's `tokencleaner`): deletes bootstrap token
 * Secrets of `kube-system` once their `expiration` has passed, at that moment (the loop asks to
 * run again when the next token expires) and at every change of a Secret there.
 *
 * @module
 */
import type { Logger } from "../../../shared/log/mod.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import type { ResourceRegistry } from "../../registry/resource_registry.ts";
import type { ChangeFeed } from "../../watch/change_feed.ts";
import {
  listTokenSecrets,
  TOKEN_NAMESPACE,
  TOKEN_SECRETS_KEY_PREFIX,
  tokenExpired,
} from "./bootstrap_token_secrets.ts";
import { SyncLoop } from "./sync_loop.ts";

/** Options of the token cleaner. */
export interface TokenCleanerOptions {
  registry: ResourceRegistry;
  feed: ChangeFeed;
  logger?: Logger;
  now?: () => number;
}

/** Deletes expired bootstrap token Secrets. */
export class TokenCleaner {
  readonly #opts: TokenCleanerOptions;
  readonly #loop: SyncLoop;

  constructor(opts: TokenCleanerOptions) {
    this.#opts = opts;
    this.#loop = new SyncLoop({
      name: "token cleaner",
      feed: opts.feed,
      prefixes: [TOKEN_SECRETS_KEY_PREFIX],
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

  /** Deletes what expired; answers the delay until the next token expires. */
  async sync(): Promise<number | undefined> {
    const now = (this.#opts.now ?? Date.now)();
    const secrets = this.#opts.registry.lookup("", "v1", "secrets")!;
    let next: number | undefined;
    for (const token of await listTokenSecrets(this.#opts.registry)) {
      const { name, uid } = token.secret.metadata;
      if (!tokenExpired(token, now)) {
        if (token.expiresAt !== undefined) next = Math.min(next ?? Infinity, token.expiresAt - now);
        continue;
      }
      if (token.secret.metadata.deletionTimestamp) continue;
      try {
        await secrets.delete(TOKEN_NAMESPACE, name!, { preconditions: { uid } });
        this.#opts.logger?.info("deleted expired bootstrap token secret", { name });
      } catch (err) {
        if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
      }
    }
    return next;
  }
}
