/**
 * Feature gates shared by the API server and the node agent: the registry of known gates,
 * the effective state, and the `--feature-gates` flag parser.
 *
 * @module
 */
export {
  type FeatureGateProblems,
  FeatureGates,
  featureGatesFlagHelp,
  parseGoBool,
} from "./feature_gates/feature_gates.ts";
export {
  componentFeatureGatesFlagHelp,
  componentFeatureGatesFromFlags,
  DEFAULT_COMPONENT,
} from "./feature_gates/component_feature_gates.ts";
export {
  type FeatureGatesFromFlag,
  featureGatesFromFlag,
} from "./feature_gates/feature_gates_from_flag.ts";
export {
  type FeatureName,
  type FeatureSpec,
  type FeatureStage,
  KNOWN_FEATURES,
} from "./feature_gates/known_features.ts";
