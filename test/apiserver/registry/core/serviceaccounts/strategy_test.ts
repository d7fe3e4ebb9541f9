import assert from "node:assert/strict";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import {
  serviceAccountKind,
  serviceAccountKindWithToken,
} from "../../../../../apiserver/registry/core/serviceaccounts/strategy.ts";
import { validateLikeRequest } from "../../../../support/validate_like_request.ts";
import type { TokenRequestDeps } from "../../../../../apiserver/registry/authentication/tokenrequests/token_request.ts";

const sa = (rest: Record<string, unknown>): KubeObject => ({
  metadata: { name: "s", namespace: "default" },
  ...rest,
});

Deno.test("serviceAccountKind: the schema checks the secret lists", async (t) => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["minimal", {}, []],
    ["lists", { secrets: [{ name: "a" }], imagePullSecrets: [{ name: "b" }] }, []],
    ["secrets not a list", { secrets: { name: "a" } }, ["FieldValueTypeInvalid secrets"]],
    ["imagePullSecrets not a list", { imagePullSecrets: "b" }, [
      "FieldValueTypeInvalid imagePullSecrets",
    ]],
    ["automountServiceAccountToken", { automountServiceAccountToken: false }, []],
  ];
  for (const [name, rest, want] of cases) {
    await t.step(name, () => {
      assert.deepEqual(
        validateLikeRequest(serviceAccountKind, sa(rest)).map((e) => `${e.type} ${e.field}`),
        want,
      );
    });
  }
});

Deno.test("serviceAccountKindWithToken() adds the token subresource", () => {
  assert.equal(serviceAccountKind.subresources, undefined);
  const kind = serviceAccountKindWithToken({} as TokenRequestDeps);
  const token = kind.subresources?.find((s) => s.name === "token");
  assert.ok(token);
  assert.deepEqual(token.verbs, ["create"]);
  assert.deepEqual(token.requestKind, {
    group: "authentication.k8s.io",
    version: "v1",
    kind: "TokenRequest",
  });
  assert.equal(kind.strategy, serviceAccountKind.strategy);
  assert.equal(kind.plural, "serviceaccounts");
});
