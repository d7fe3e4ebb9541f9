/**
 * The controllers and start-time objects nodes join with: the token cleaner, the bootstrap
 * signer (with kubeadm's `cluster-info` and its anonymous read access), the CSR approver and
 * signer, each when `--controllers` selects it.
 *
 * @module
 */
import { join } from "node:path";
import type { Logger } from "../../shared/log/mod.ts";
import type { Authorizer } from "../auth/authz/authorizer.ts";
import { ensureKubeadmPolicy } from "./bootstrap/kubeadm_policy.ts";
import type { Pki } from "../pki/bootstrap_pki.ts";
import type { ResourceRegistry } from "../registry/resource_registry.ts";
import type { ChangeFeed } from "../watch/change_feed.ts";
import {
  BootstrapSigner,
  clusterInfoKubeconfig,
  ensureClusterInfo,
} from "./bootstrap/bootstrap_signer.ts";
import { TokenCleaner } from "./bootstrap/token_cleaner.ts";
import { CsrApprover } from "./certificates/csr_approver.ts";
import { CsrSigner } from "./certificates/csr_signer.ts";
import { type ControllerOptions, controllerOptionsFromFlags } from "./controller_options.ts";

/** The default controller options (`--controllers=*`, one year, no serving auto-approval). */
export function defaultControllerOptions(): ControllerOptions {
  return controllerOptionsFromFlags({}, []);
}

/** What the controllers are built from. */
export interface NodeJoinDeps {
  options: ControllerOptions;
  registry: ResourceRegistry;
  feed: ChangeFeed;
  authorizer: () => Authorizer;
  pki: Pki;
  /** The server's URL (written in cluster-info; the host name instead on a wildcard bind). */
  url: string;
  /** `--bind-address`. */
  bindAddress?: string;
  logger: Logger;
}

interface Startable {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Ensures kubeadm's objects, then builds the selected controllers. */
export async function nodeJoinControllers(d: NodeJoinDeps): Promise<Startable[]> {
  const { registry, feed, logger } = d;
  const on = (name: string) => d.options.selection.enabled(name);
  await ensureKubeadmPolicy(registry);
  const caPem = d.pki.caPem ?? d.pki.serving.certPem;
  await ensureClusterInfo(registry, clusterInfoKubeconfig(joinUrl(d.url, d.bindAddress), caPem));
  const out: Startable[] = [];
  if (on("token-cleaner-controller")) out.push(new TokenCleaner({ registry, feed, logger }));
  if (on("bootstrap-signer-controller")) {
    out.push(new BootstrapSigner({ registry, feed, logger }));
  }
  if (on("certificatesigningrequest-approving-controller")) {
    out.push(
      new CsrApprover({
        registry,
        feed,
        authorizer: d.authorizer,
        approveNodeServing: d.options.autoApproveNodeServing,
        logger,
      }),
    );
  }
  if (on("certificatesigningrequest-signing-controller")) {
    out.push(
      new CsrSigner({
        registry,
        feed,
        clientCa: d.pki.clientCa,
        servingCa: await servingCa(d.pki),
        durationMs: d.options.clusterSigningDurationMs,
        logger,
      }),
    );
  }
  return out;
}

/**
 * The URL other machines reach the server at: on a wildcard bind the host name (a SAN of the
 * generated serving certificate) instead of the loopback address local clients use.
 */
function joinUrl(url: string, bindAddress?: string): string {
  if (bindAddress !== "" && bindAddress !== "0.0.0.0" && bindAddress !== "::") return url;
  const u = new URL(url);
  u.hostname = Deno.hostname().toLowerCase();
  return u.toString().replace(/\/$/, "");
}

/** The serving CA pair under the PKI directory (the client CA when it cannot be read). */
async function servingCa(pki: Pki): Promise<{ certPem: string; keyPem: string }> {
  try {
    return {
      certPem: await Deno.readTextFile(join(pki.dir, "ca.crt")),
      keyPem: await Deno.readTextFile(join(pki.dir, "ca.key")),
    };
  } catch {
    return pki.clientCa;
  }
}

/** The node-join controllers as one: ensure() at bootstrap, then start() and stop(). */
export class NodeJoinControllers {
  readonly #deps: NodeJoinDeps;
  #built: Startable[] = [];
  #started = false;

  constructor(deps: NodeJoinDeps) {
    this.#deps = deps;
  }

  /** Creates kubeadm's objects and builds the selected controllers. */
  async ensure(): Promise<void> {
    this.#built = await nodeJoinControllers(this.#deps);
  }

  async start(): Promise<void> {
    this.#started = true;
    for (const c of this.#built) await c.start();
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    for (const c of this.#built) await c.stop();
  }
}
