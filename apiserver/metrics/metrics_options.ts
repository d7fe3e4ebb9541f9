/**
 * The metric flags Kubernetes components share: `--show-hidden-metrics-for-version` and
 * `--disabled-metrics`, validated with the other flags (every problem at once).
 *
 * @module
 */
import { CURRENT_VERSION, type MetricsFlags, validateMetricsFlags } from "./metrics_lifecycle.ts";

/** Help text of the flags, in Kubernetes' words. */
export const METRICS_FLAG_HELP: Record<string, string> = {
  "show-hidden-metrics-for-version": "The previous version for which you want to show hidden " +
    "metrics. Only the previous minor version is meaningful, other values will not be allowed. " +
    `The format is <major>.<minor>, e.g.: '1.${Number(CURRENT_VERSION.split(".")[1]) - 1}'. ` +
    "The purpose of this format is make sure you have the opportunity to notice if the next " +
    "release hides additional metrics, rather than being surprised when they are permanently " +
    "removed in the release after that.",
  "disabled-metrics": "This flag provides an escape hatch for misbehaving metrics. You must " +
    "provide the fully qualified metric name in order to disable it. Disclaimer: disabling " +
    "metrics is higher in precedence than showing hidden metrics. (comma-separated, repeatable)",
};

/** The parseArgs option declarations of the flags. */
export const METRICS_PARSE_OPTIONS = {
  "show-hidden-metrics-for-version": { type: "string" },
  "disabled-metrics": { type: "string", multiple: true },
} as const;

/** Reads and validates the metric flags; problems go to `errors`. */
export function metricsOptionsFromFlags(
  values: Record<string, string | string[] | boolean | undefined>,
  errors: string[],
): MetricsFlags {
  const disabled = ((values["disabled-metrics"] as string[] | undefined) ?? [])
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
  const flags: MetricsFlags = {
    showHiddenMetricsForVersion: (values["show-hidden-metrics-for-version"] as string) ?? "",
    disabledMetrics: disabled,
  };
  errors.push(...validateMetricsFlags(flags));
  return flags;
}
