/**
 * DefaultTolerationSeconds, as kube's plugin: a pod that does not tolerate the
 * `node.kubernetes.io/not-ready` or `node.kubernetes.io/unreachable` NoExecute taint gets a
 * toleration of it for 300 seconds (kube's --default-not-ready-toleration-seconds and
 * --default-unreachable-toleration-seconds defaults).
 *
 * @module
 */
import { isObject } from "../../shared/json/is_object.ts";
import type { AdmissionPlugin } from "../registry/generic/admission.ts";

/** The default toleration seconds of both taints. */
export const DEFAULT_TOLERATION_SECONDS = 300;

const TAINTS = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"];

interface Toleration {
  key?: string;
  effect?: string;
}

/** Builds the plugin. */
export function defaultTolerationSeconds(seconds = DEFAULT_TOLERATION_SECONDS): AdmissionPlugin {
  return {
    name: "DefaultTolerationSeconds",
    admit(a) {
      if (a.kind.group !== "" || a.kind.plural !== "pods" || a.subresource) return;
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      const spec = a.object?.spec;
      if (!isObject(spec)) return;
      const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations as Toleration[] : [];
      const added = TAINTS.filter((key) =>
        !tolerations.some((t) =>
          (!t.key || t.key === key) && (!t.effect || t.effect === "NoExecute")
        )
      ).map((key) => ({
        key,
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: seconds,
      }));
      if (added.length > 0) spec.tolerations = [...tolerations, ...added];
    },
  };
}
