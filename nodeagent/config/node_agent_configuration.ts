/**
 * The node agent's configuration model: a KubeletConfiguration-like document
 * (`apiVersion: kubelet.config.k8s.io/v1beta1`, `kind: KubeletConfiguration`) and its defaults.
 *
 * @module
 */

/** The apiVersion every configuration file carries. */
export const CONFIG_API_VERSION = "kubelet.config.k8s.io/v1beta1";
/** The kind every configuration file carries. */
export const CONFIG_KIND = "KubeletConfiguration";

/** Webhook authorization settings (`authorization.webhook`). */
export interface WebhookAuthorization {
  /** How long to cache allowed answers (Go duration). */
  cacheAuthorizedTTL: string;
  /** How long to cache denied answers (Go duration). */
  cacheUnauthorizedTTL: string;
}

/** `authorization`: how requests to the agent's own port are authorized. */
export interface AgentAuthorization {
  /** `AlwaysAllow` or `Webhook` (SubjectAccessReview against the API server). */
  mode: "AlwaysAllow" | "Webhook";
  /** Webhook settings. */
  webhook: WebhookAuthorization;
}

/** `authentication`: how callers of the agent's own port are authenticated. */
export interface AgentAuthentication {
  /** Client certificates signed by this CA bundle are accepted. */
  x509: { clientCAFile: string };
  /** Bearer tokens are checked with a TokenReview. */
  webhook: { enabled: boolean; cacheTTL: string };
  /** Requests without credentials are treated as `system:anonymous`. */
  anonymous: { enabled: boolean };
}

/** The merged, defaulted configuration of the node agent. */
export interface NodeAgentConfiguration {
  /** Always {@link CONFIG_API_VERSION}. */
  apiVersion: string;
  /** Always {@link CONFIG_KIND}. */
  kind: string;
  /** Feature gate overrides by name. */
  featureGates: Record<string, boolean>;
  /** How often node status is computed (Go duration, default `10s`). */
  nodeStatusUpdateFrequency: string;
  /** Longest interval between node status writes when nothing changed (default `5m`). */
  nodeStatusReportFrequency: string;
  /** The Lease's duration in seconds (default 40; renewed every quarter of it). */
  nodeLeaseDurationSeconds: number;
  /** Resources reserved for the operating system (`cpu`, `memory`, `pid`, `ephemeral-storage`). */
  systemReserved: Record<string, string>;
  /** Resources reserved for the node agent and runtime. */
  kubeReserved: Record<string, string>;
  /** Hard eviction thresholds, signal to quantity or percentage (`memory.available: 100Mi`). */
  evictionHard: Record<string, string>;
  /** How long a pressure condition stays True after its threshold is no longer met (default `5m`). */
  evictionPressureTransitionPeriod: string;
  /** DNS server addresses given to pods. */
  clusterDNS: string[];
  /** The cluster's DNS domain. */
  clusterDomain: string;
  /** HTTP headers sent when fetching static pods from a URL; a header may have several values. */
  staticPodURLHeader: Record<string, string[]>;
  /** Authorization of requests to the agent's port. */
  authorization: AgentAuthorization;
  /** Authentication of requests to the agent's port. */
  authentication: AgentAuthentication;
  /** Address the agent's HTTPS server listens on. */
  address: string;
  /** Port of the agent's HTTPS server (default 10250). */
  port: number;
  /** Serving certificate file; empty means self-signed. */
  tlsCertFile: string;
  /** Serving key file. */
  tlsPrivateKeyFile: string;
  /** The agent's root directory (default `/var/lib/nodeagent`). */
  rootDir: string;
  /** Extra labels the node registers with. */
  nodeLabels: Record<string, string>;
  /** Maximum number of pods (default 110). */
  maxPods: number;
  /** CRI endpoint (`unix:///run/containerd/containerd.sock`); empty selects the process runtime. */
  containerRuntimeEndpoint: string;
  /** Whether the node registers itself. */
  registerNode: boolean;
  /** Use RuntimeDefault as the default seccomp profile of all workloads. */
  seccompDefault: boolean;
  /** Renew the client certificate through the certificates API at 70-90% of its lifetime. */
  rotateCertificates: boolean;
  /** Request the serving certificate from the cluster (kubelet-serving) and keep it renewed. */
  serverTLSBootstrap: boolean;
}

/** The defaults the kubelet applies (for the fields we model), with our root directory. */
export function defaultConfiguration(): NodeAgentConfiguration {
  return {
    apiVersion: CONFIG_API_VERSION,
    kind: CONFIG_KIND,
    featureGates: {},
    nodeStatusUpdateFrequency: "10s",
    nodeStatusReportFrequency: "5m0s",
    nodeLeaseDurationSeconds: 40,
    systemReserved: {},
    kubeReserved: {},
    evictionHard: {
      "memory.available": "100Mi",
      "nodefs.available": "10%",
      "nodefs.inodesFree": "5%",
      "imagefs.available": "15%",
      "imagefs.inodesFree": "5%",
    },
    evictionPressureTransitionPeriod: "5m0s",
    clusterDNS: [],
    clusterDomain: "",
    staticPodURLHeader: {},
    authorization: {
      mode: "Webhook",
      webhook: { cacheAuthorizedTTL: "5m0s", cacheUnauthorizedTTL: "30s" },
    },
    authentication: {
      x509: { clientCAFile: "" },
      webhook: { enabled: true, cacheTTL: "2m0s" },
      anonymous: { enabled: false },
    },
    address: "0.0.0.0",
    port: 10250,
    tlsCertFile: "",
    tlsPrivateKeyFile: "",
    rootDir: "/var/lib/nodeagent",
    nodeLabels: {},
    maxPods: 110,
    containerRuntimeEndpoint: "",
    registerNode: true,
    seccompDefault: false,
    rotateCertificates: false,
    serverTLSBootstrap: false,
  };
}
