/**
 * AlwaysAdmit and AlwaysDeny, kube's two deprecated plugins that admit everything or refuse
 * every write (403 "admission control is denying all modifications").
 *
 * @module
 */
import { StatusError } from "../../shared/errors/status_error.ts";
import type { AdmissionPlugin } from "../registry/generic/admission.ts";

/** AlwaysAdmit: admits every request (no checks). */
export function alwaysAdmit(): AdmissionPlugin {
  return { name: "AlwaysAdmit" };
}

/** AlwaysDeny: refuses every request that reaches admission. */
export function alwaysDeny(): AdmissionPlugin {
  return {
    name: "AlwaysDeny",
    admit(a) {
      throw StatusError.forbidden(
        { group: a.kind.group, resource: a.kind.plural },
        a.name,
        "admission control is denying all modifications",
      );
    },
  };
}
