import assert from "node:assert/strict";
import { validateSignerName } from "../../../../../apiserver/registry/certificates/certificatesigningrequests/signer_name.ts";
import { fieldErrorMessage } from "../../../../../shared/errors/status_error.ts";

const messages = (name: string) =>
  validateSignerName("spec.signerName", name).map(fieldErrorMessage);

Deno.test("validateSignerName() accepts qualified names", () => {
  for (const name of ["kubernetes.io/kube-apiserver-client", "example.com/ns.name", "a.b/c"]) {
    assert.deepEqual(messages(name), [], name);
  }
});

Deno.test("validateSignerName() explains each problem as Kubernetes does", () => {
  assert.deepEqual(messages(""), ["spec.signerName: Required value"]);
  assert.deepEqual(messages("a/b/c"), [
    'spec.signerName: Invalid value: "a/b/c": must be a fully qualified domain and path of ' +
    "the form 'example.com/signer-name'",
  ]);
  assert.deepEqual(messages("Example.com/x"), [
    'spec.signerName: Invalid value: "Example.com": validating label "Example": a lowercase ' +
    "RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start " +
    "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for " +
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
  assert.deepEqual(messages("example.com/a_b"), [
    'spec.signerName: Invalid value: "a_b": validating label "a_b": a lowercase RFC 1123 ' +
    "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start " +
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  assert.match(messages(`example.com/${"a".repeat(572)}`)[0], /Too long: may not be more than 571/);
});
