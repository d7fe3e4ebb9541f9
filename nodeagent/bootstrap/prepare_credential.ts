/**
 * The node's credential before the agent starts: with `--token` the cluster is discovered and
 * a bootstrap kubeconfig written (kubeadm join), with a bootstrap kubeconfig the node's client
 * certificate is requested when its kubeconfig is missing or expired.
 *
 * @module
 */
import { join } from "node:path";
import type { Logger } from "../../shared/log/mod.ts";
import type { AgentOptions } from "../agent_options.ts";
import { discoverCluster } from "./join_discovery.ts";
import { ensureNodeKubeconfig, usableKubeconfig } from "./tls_bootstrap.ts";
import { writeKubeconfig } from "./write_kubeconfig.ts";

/** Makes sure `o.kubeconfig` holds the node's credential; throws with the reason otherwise. */
export async function prepareNodeCredential(
  o: AgentOptions,
  logger: Logger,
  signal?: AbortSignal,
): Promise<void> {
  const b = o.bootstrap;
  if (!b || (!b.join && !b.bootstrapKubeconfig)) return;
  if (await usableKubeconfig(o.kubeconfig, new Date())) return;
  let bootstrapKubeconfig = b.bootstrapKubeconfig;
  if (b.join) {
    const cluster = await discoverCluster({ ...b.join, logger });
    logger.info("cluster-info verified", { server: cluster.server });
    bootstrapKubeconfig ??= join(o.config.rootDir, "bootstrap-nodeagent.kubeconfig");
    await Deno.mkdir(o.config.rootDir, { recursive: true, mode: 0o700 });
    await writeKubeconfig(bootstrapKubeconfig, {
      server: cluster.server,
      caPem: cluster.caPem,
      userName: "tls-bootstrap-token-user",
      user: { token: b.join.token },
    });
  }
  await ensureNodeKubeconfig({
    kubeconfig: o.kubeconfig,
    bootstrapKubeconfig: bootstrapKubeconfig!,
    nodeName: o.nodeName,
    logger,
    signal,
  });
}
