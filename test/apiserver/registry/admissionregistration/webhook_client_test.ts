import assert from "node:assert/strict";
import {
  validateWebhookService,
  validateWebhookURL,
} from "../../../../apiserver/registry/admissionregistration/webhook_client.ts";
import { fieldErrorMessage } from "../../../../shared/errors/status_error.ts";

const messages = (errs: Parameters<typeof fieldErrorMessage>[0][]) => errs.map(fieldErrorMessage);

Deno.test("validateWebhookURL() accepts https URLs with a host and nothing else", () => {
  assert.deepEqual(validateWebhookURL("u", "https://hooks.example.com:8443/a/b"), []);
  assert.deepEqual(messages(validateWebhookURL("u", "https://user:pw@h/p?q=1#frag")), [
    'u: Invalid value: "user:pw": user information is not permitted in the URL',
    'u: Invalid value: "frag": fragments are not permitted in the URL',
    'u: Invalid value: "q=1": query parameters are not permitted in the URL',
  ]);
  assert.deepEqual(messages(validateWebhookURL("u", "/relative")), [
    "u: Invalid value: \"\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
    'u: Invalid value: "": host must be specified; desired format: https://host[/path]',
  ]);
});

Deno.test("validateWebhookService() requires a name and namespace and checks port and path", () => {
  assert.deepEqual(validateWebhookService("s", { name: "a", namespace: "b", port: 443 }), []);
  assert.deepEqual(
    messages(validateWebhookService("s", { port: 0, path: "//" })),
    [
      "s.name: Required value: service name is required",
      "s.namespace: Required value: service namespace is required",
      "s.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive",
      's.path: Invalid value: "//": segment[0] may not be empty',
    ],
  );
  assert.deepEqual(
    messages(validateWebhookService("s", { name: "a", namespace: "b", path: "x/Y/" })),
    [
      "s.path: Invalid value: \"x/Y/\": must start with a '/'",
      // As in Kubernetes, the first character is dropped whatever it is.
      's.path: Invalid value: "x/Y/": segment[0] may not be empty',
      "s.path: Invalid value: \"x/Y/\": segment[1]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
  );
});
