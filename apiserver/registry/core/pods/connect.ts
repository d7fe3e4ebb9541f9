/**
 * The streaming and proxy subresources of pods (`log`, `exec`, `attach`, `portforward`,
 * `proxy`) with kube's verbs and kinds: 503 until the server connects to node agents.
 *
 * @module
 */
import type { SubresourceDef } from "../../generic/kind.ts";
import { PROXY_VERBS, unavailableSubresource } from "../../generic/unavailable_subresource.ts";

/** The pods subresources that stream from or proxy to a running pod. */
export const POD_CONNECT_SUBRESOURCES: readonly SubresourceDef[] = [
  unavailableSubresource("pods/attach", ["create", "get"], "PodAttachOptions"),
  unavailableSubresource("pods/exec", ["create", "get"], "PodExecOptions"),
  unavailableSubresource("pods/log", ["get"]),
  unavailableSubresource("pods/portforward", ["create", "get"], "PodPortForwardOptions"),
  unavailableSubresource("pods/proxy", PROXY_VERBS, "PodProxyOptions"),
];
