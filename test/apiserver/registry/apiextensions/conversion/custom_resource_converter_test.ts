import assert from "node:assert/strict";
import { customResourceConverter } from "../../../../../apiserver/registry/apiextensions/conversion/custom_resource_converter.ts";
import { WebhookClient } from "../../../../../apiserver/webhook/webhook_client.ts";
import type { CustomResourceDefinition } from "../../../../../shared/api/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../../../shared/api/meta/v1/types.ts";
import { StatusError } from "../../../../../shared/errors/status_error.ts";
import {
  type ConversionWebhook,
  type ConversionWebhookMode,
  startConversionWebhook,
} from "../../../../support/conversion_webhook.ts";

function widgetCrd(conversion?: CustomResourceDefinition["spec"]["conversion"]) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      names: { plural: "widgets", kind: "Widget" },
      scope: "Namespaced",
      versions: [
        { name: "v1", served: true, storage: false },
        { name: "v2", served: true, storage: true },
      ],
      conversion,
    },
  } as CustomResourceDefinition;
}

function widget(name: string, apiVersion: string, spec: unknown): KubeObject {
  return {
    apiVersion,
    kind: "Widget",
    metadata: { name, namespace: "default", uid: `uid-${name}`, generation: 3 },
    spec,
  } as KubeObject;
}

async function failure(fn: () => unknown): Promise<StatusError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return err;
  }
  throw new Error("expected a rejection");
}

Deno.test("customResourceConverter() with strategy None rewrites the apiVersion only", () => {
  const conv = customResourceConverter(widgetCrd({ strategy: "None" }));
  assert.equal(conv.asynchronous, false);
  const v1 = conv.forVersion("v1");
  assert.equal(v1.fromStorageList, undefined);
  const stored = widget("a", "example.com/v2", { dimensions: { size: 1 } });
  assert.deepEqual(v1.fromStorage(stored), { ...stored, apiVersion: "example.com/v1" });
  assert.deepEqual(v1.toStorage({ ...stored, apiVersion: "example.com/v1" }), stored);
  // An object written at v1 (an earlier storage version) reads as v2.
  const v2 = conv.forVersion("v2");
  const old = widget("b", "example.com/v1", { size: 1 });
  assert.deepEqual(v2.fromStorage(old), { ...old, apiVersion: "example.com/v2" });
});

Deno.test("customResourceConverter() refuses versions the CRD does not have, with kube's messages", async () => {
  const conv = customResourceConverter(widgetCrd());
  const bad = widget("a", "example.com/v7", {});
  const single = await failure(() => conv.forVersion("v1").fromStorage(bad));
  assert.equal(single.code, 500);
  assert.equal(
    single.message,
    "request to convert CR from an invalid group/version: example.com/v7",
  );
  const list = await failure(
    () => conv.convert([widget("b", "example.com/v1", {}), bad], "example.com/v2", true),
  );
  assert.equal(
    list.message,
    "request to convert CR list failed, list index 1 has invalid group/version: example.com/v7",
  );
  const to = await failure(() => conv.convert([bad], "example.com/v3"));
  assert.equal(to.message, "request to convert CR to an invalid group/version: example.com/v3");
});

async function withWebhook(
  mode: ConversionWebhookMode,
  fn: (hook: ConversionWebhook, conv: ReturnType<typeof customResourceConverter>) => Promise<void>,
  opts: { reviewVersions?: string[]; timeoutMs?: number; url?: string } = {},
): Promise<void> {
  const hook = await startConversionWebhook(mode);
  const client = new WebhookClient();
  try {
    const crd = widgetCrd({
      strategy: "Webhook",
      webhook: {
        clientConfig: { url: opts.url ?? hook.url, caBundle: hook.caBundle },
        conversionReviewVersions: opts.reviewVersions ?? ["v1"],
      },
    });
    await fn(
      hook,
      customResourceConverter(crd, { webhooks: client, webhookTimeoutMs: opts.timeoutMs }),
    );
  } finally {
    client.close();
    await hook.close();
  }
}

Deno.test("customResourceConverter() with a webhook converts a list in one ConversionReview", async () => {
  await withWebhook("convert", async (hook, conv) => {
    assert.equal(conv.asynchronous, true);
    const v1 = conv.forVersion("v1");
    const items = [
      widget("a", "example.com/v2", { dimensions: { size: 1 } }),
      widget("b", "example.com/v1", { size: 2 }),
      widget("c", "example.com/v2", { dimensions: { size: 3 } }),
    ];
    const out = await v1.fromStorageList!(items);
    assert.deepEqual(out.map((o) => [o.apiVersion, o.spec]), [
      ["example.com/v1", { size: 1 }],
      ["example.com/v1", { size: 2 }],
      ["example.com/v1", { size: 3 }],
    ]);
    assert.equal(hook.reviews.length, 1);
    const review = hook.reviews[0];
    assert.equal(review.apiVersion, "apiextensions.k8s.io/v1");
    assert.equal(review.kind, "ConversionReview");
    const request = review.request as {
      uid: string;
      desiredAPIVersion: string;
      objects: KubeObject[];
    };
    assert.equal(request.desiredAPIVersion, "example.com/v1");
    assert.deepEqual(
      request.objects.map((o) => o.metadata.name),
      ["a", "c"],
      "only those to convert",
    );
    assert.match(request.uid, /^[0-9a-f-]{36}$/);
    const stored = await v1.toStorage(widget("d", "example.com/v1", { size: 4 }));
    assert.deepEqual(stored.spec, { dimensions: { size: 4 } });
    assert.equal(stored.apiVersion, "example.com/v2");
    // Nothing to convert: no call.
    await conv.forVersion("v2").fromStorage(items[0]);
    assert.equal(hook.reviews.length, 2);
  });
});

Deno.test("customResourceConverter() keeps a webhook's label changes and restores the rest of the metadata", async () => {
  await withWebhook("relabelled", async (_hook, conv) => {
    const out = await conv.forVersion("v1").fromStorage(widget("a", "example.com/v2", {}));
    assert.deepEqual(out.metadata.labels, { converted: "yes" });
    assert.equal(out.metadata.generation, 3);
  });
});

Deno.test("customResourceConverter() sends ConversionReview v1beta1 when it comes first", async () => {
  await withWebhook("convert", async (hook, conv) => {
    await conv.forVersion("v1").fromStorage(widget("a", "example.com/v2", {}));
    assert.equal(hook.reviews[0].apiVersion, "apiextensions.k8s.io/v1beta1");
  }, { reviewVersions: ["v1beta1", "v1"] });
});

const BAD_ANSWERS: [ConversionWebhookMode, boolean, RegExp][] = [
  [
    "wrongUid",
    false,
    /^conversion webhook for example.com\/v2, Kind=Widget failed: expected response.uid="[0-9a-f-]+", got "not-the-request"$/,
  ],
  [
    "failed",
    false,
    /^conversion webhook for example.com\/v2, Kind=Widget failed: widgets cannot convert today$/,
  ],
  [
    "tooFew",
    true,
    /^conversion webhook for example.com\/v2, Kind=Widget returned 1 objects, expected 2$/,
  ],
  [
    "wrongVersion",
    false,
    /^conversion webhook for example.com\/v2, Kind=Widget returned invalid object at index 0: invalid groupVersion \(expected example.com\/v1, received example.com\/v9\)$/,
  ],
  [
    "renamed",
    false,
    /^conversion webhook for example.com\/v2, Kind=Widget returned invalid object: must have the same name: a != x$/,
  ],
  [
    "renamed",
    true,
    /^conversion webhook for example.com\/v2, Kind=Widget returned invalid converted object at index 1: must have the same name: a != x$/,
  ],
  [
    "http500",
    false,
    /^conversion webhook for example.com\/v2, Kind=Widget failed: an error on the server \("boom"\) has prevented the request from succeeding$/,
  ],
];

for (const [mode, list, message] of BAD_ANSWERS) {
  Deno.test(`customResourceConverter() answers a webhook's ${mode} ${list ? "list " : ""}answer with kube's 500`, async () => {
    await withWebhook(mode, async (_hook, conv) => {
      const items = [widget("a", "example.com/v2", {}), widget("b", "example.com/v2", {})];
      const v1 = conv.forVersion("v1");
      const err = await failure(() => list ? v1.fromStorageList!(items) : v1.fromStorage(items[0]));
      assert.equal(err.code, 500);
      assert.equal(err.status.reason, undefined);
      assert.match(err.message, message);
    });
  });
}

Deno.test("customResourceConverter() times a webhook out", async () => {
  await withWebhook("slow", async (_hook, conv) => {
    const err = await failure(() =>
      conv.forVersion("v1").fromStorage(widget("a", "example.com/v2", {}))
    );
    assert.match(
      err.message,
      /^conversion webhook for example.com\/v2, Kind=Widget failed: Post "https:\/\/127.0.0.1:\d+\/convert\?timeout=200ms": context deadline exceeded/,
    );
  }, { timeoutMs: 200 });
});

Deno.test("customResourceConverter() answers an unreachable webhook with kube's 500", async () => {
  await withWebhook("convert", async (_hook, conv) => {
    const err = await failure(() =>
      conv.forVersion("v1").fromStorage(widget("a", "example.com/v2", {}))
    );
    assert.equal(err.code, 500);
    assert.match(
      err.message,
      /^conversion webhook for example.com\/v2, Kind=Widget failed: Post "https:\/\/127.0.0.1:1\/convert\?timeout=30s": /,
    );
  }, { url: "https://127.0.0.1:1/convert" });
});
