/**
 * The one list of feature gates both executables know, with the stage and default each has in
 * the release this project emulates (Kubernetes 1.32), or the stage the specification gives
 * where it names one.
 *
 * @module
 */

/** A gate's maturity, as the feature gate lifecycle names it. */
export type FeatureStage = "Alpha" | "Beta" | "GA" | "Deprecated";

/** What the registry knows about one gate. */
export interface FeatureSpec {
  /** Maturity of the feature behind the gate. */
  readonly stage: FeatureStage;
  /** Whether the gate is on when nobody sets it. */
  readonly default: boolean;
  /**
   * Locked to its default: a GA gate that is "non-operational". Setting it to its default is
   * allowed (with a warning); setting it to anything else is an error.
   */
  readonly locked?: boolean;
}

/**
 * Every gate the API server and the node agent recognise.
 *
 * Stages follow the specification where it gives one (it describes `WatchList`,
 * `AnonymousAuthConfigurableEndpoints`, `AuthorizeWithSelectors` and
 * `AuthorizeNodeWithSelectors` as alpha and default off, although Kubernetes 1.32 ships them as
 * beta and on). `APISelfSubjectReview` went GA and locked in 1.28; Kubernetes dropped the gate
 * in 1.30, we keep it known (locked on) because the specification still names it.
 */
export const KNOWN_FEATURES = {
  /** Pseudo-gate: `AllAlpha=true` turns on every alpha gate not set explicitly. */
  AllAlpha: { stage: "Alpha", default: false },
  /** Pseudo-gate: `AllBeta=false` turns off every beta gate not set explicitly. */
  AllBeta: { stage: "Beta", default: false },
  /** Anonymous requests allowed only on configured paths (authentication configuration). */
  AnonymousAuthConfigurableEndpoints: { stage: "Alpha", default: false },
  /** gzip compression of get and list responses. */
  APIResponseCompression: { stage: "Beta", default: true },
  /** The SelfSubjectReview API in authentication.k8s.io/v1. */
  APISelfSubjectReview: { stage: "GA", default: true, locked: true },
  /** Node authorizer restricts reads by field and label selectors. */
  AuthorizeNodeWithSelectors: { stage: "Alpha", default: false },
  /** Authorizers see field and label selectors of list and watch requests. */
  AuthorizeWithSelectors: { stage: "Alpha", default: false },
  /** The node agent's checkpoint endpoint. */
  ContainerCheckpoint: { stage: "Beta", default: true },
  /** Fine-grained authorization of the node agent's endpoints. */
  KubeletFineGrainedAuthz: { stage: "Alpha", default: false },
  /** RuntimeDefault as the default seccomp profile when `seccompDefault` is set (GA, locked). */
  SeccompDefault: { stage: "GA", default: true, locked: true },
  /** `--authentication-config` structured authentication configuration. */
  StructuredAuthenticationConfiguration: { stage: "Beta", default: true },
  /** Streaming lists: `sendInitialEvents` on watch. */
  WatchList: { stage: "Alpha", default: false },
} as const satisfies Record<string, FeatureSpec>;

/** The name of a known gate. */
export type FeatureName = keyof typeof KNOWN_FEATURES;
