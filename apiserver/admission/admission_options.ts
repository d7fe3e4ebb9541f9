/**
 * The admission flags: `--enable-admission-plugins` and `--disable-admission-plugins` (comma
 * lists, repeatable), checked with the other options so every problem is reported at once.
 *
 * @module
 */
import type { AdmissionPlugin } from "../registry/generic/admission.ts";
import { admissionFlagErrors, enabledPluginNames, type PluginName } from "./plugin_names.ts";

/** The admission options of the server. */
export interface AdmissionOptions {
  /** `--enable-admission-plugins`. */
  enablePlugins: string[];
  /** `--disable-admission-plugins`. */
  disablePlugins: string[];
  /** The enabled plugins, in chain order. */
  plugins: PluginName[];
  /** Plugins run after the named ones (not a flag: tests add probes with it). */
  extraPlugins?: AdmissionPlugin[];
}

/** The flags' help. */
export const ADMISSION_FLAG_HELP: Record<string, string> = {
  "enable-admission-plugins":
    "admission plugins to enable besides the default ones (comma-separated, kube's names)",
  "disable-admission-plugins": "admission plugins to disable, default ones included",
};

/** The `node:util` parseArgs specs of the flags. */
export const ADMISSION_PARSE_OPTIONS = {
  "enable-admission-plugins": { type: "string", multiple: true },
  "disable-admission-plugins": { type: "string", multiple: true },
} as const;

/** Reads the flags; appends their problems to `errors`. */
export function admissionOptionsFromFlags(
  values: Record<string, unknown>,
  errors: string[],
): AdmissionOptions {
  const list = (k: string) =>
    ((values[k] as string[] | undefined) ?? []).flatMap((s) => s.split(","))
      .map((s) => s.trim()).filter((s) => s !== "");
  const enablePlugins = list("enable-admission-plugins");
  const disablePlugins = list("disable-admission-plugins");
  errors.push(...admissionFlagErrors(enablePlugins, disablePlugins));
  return {
    enablePlugins,
    disablePlugins,
    plugins: enabledPluginNames(enablePlugins, disablePlugins),
  };
}
