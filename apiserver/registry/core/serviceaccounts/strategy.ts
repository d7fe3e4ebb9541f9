/** ServiceAccount: a namespaced identity. */
import type { FieldError } from "../../../../shared/errors/status_error.ts";
import { invalid } from "../../generic/field_errors.ts";
import type { KindDef } from "../../generic/kind.ts";

/** The ServiceAccount kind. */
export const serviceAccountKind: KindDef = {
  group: "",
  version: "v1",
  kind: "ServiceAccount",
  plural: "serviceaccounts",
  singular: "serviceaccount",
  shortNames: ["sa"],
  namespaced: true,
  strategy: {
    validate(obj) {
      const errs: FieldError[] = [];
      for (const f of ["secrets", "imagePullSecrets"]) {
        if (obj[f] !== undefined && !Array.isArray(obj[f])) {
          errs.push(invalid(f, obj[f], "must be a list"));
        }
      }
      return errs;
    },
  },
};
