/** ServiceAccount: a namespaced identity. */
import type { KindDef, SubresourceDef, TableColumns } from "../../generic/kind.ts";
import {
  createTokenRequest,
  type TokenRequestDeps,
} from "../../authentication/tokenrequests/token_request.ts";
import {
  AGE_COLUMN,
  ageOf as age,
  column as col,
  listOf as list,
  NAME_COLUMN,
} from "../../generic/table_columns.ts";

/** ServiceAccount: Name, Secrets, Age. */
const SERVICEACCOUNT_COLUMNS: TableColumns = {
  columns: [
    NAME_COLUMN,
    col(
      "Secrets",
      "string",
      "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.",
    ),
    AGE_COLUMN,
  ],
  cells: (o, now) => [o.metadata?.name ?? "", list(o.secrets).length, age(o, now)],
};

/** The ServiceAccount kind. */
export const serviceAccountKind: KindDef = {
  group: "",
  version: "v1",
  kind: "ServiceAccount",
  plural: "serviceaccounts",
  singular: "serviceaccount",
  shortNames: ["sa"],
  namespaced: true,
  returnDeletedObject: true,
  strategy: {
    tableColumns: SERVICEACCOUNT_COLUMNS,
    // The schema makes secrets and imagePullSecrets lists; nothing else is checked here.
    validate: () => [],
  },
};

/**
 * The `token` subresource (TokenRequest): `create` issues a service account token. It needs
 * the server's token issuer, so it is built per server (see `builtinKinds()`).
 */
export function serviceAccountTokenSubresource(deps: TokenRequestDeps): SubresourceDef {
  return {
    name: "token",
    verbs: ["create"],
    requestKind: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" },
    create: (args) => createTokenRequest(args, deps),
  };
}

/** The ServiceAccount kind serving the `token` subresource with `deps`. */
export function serviceAccountKindWithToken(deps: TokenRequestDeps): KindDef {
  return {
    ...serviceAccountKind,
    subresources: [
      ...(serviceAccountKind.subresources ?? []).filter((s) => s.name !== "token"),
      serviceAccountTokenSubresource(deps),
    ],
  };
}
