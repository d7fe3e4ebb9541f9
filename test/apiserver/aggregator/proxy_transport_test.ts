import assert from "node:assert/strict";
import { ProxyError, ProxyTransport } from "../../../apiserver/aggregator/proxy_transport.ts";
import { apiServiceInfo } from "../../../apiserver/aggregator/api_service_cache.ts";
import type { ServiceEndpointSource } from "../../../apiserver/webhook/service_resolver.ts";
import type { KubeObject } from "../../../shared/api/meta/v1/types.ts";
import { createCA, issueCertificate } from "../../../shared/pki/issue_certificate.ts";

/** A Service `ns/api` whose EndpointSlice points at 127.0.0.1:`port` (or has no endpoint). */
function endpoints(port: number | undefined): ServiceEndpointSource {
  return {
    getService: () =>
      Promise.resolve(
        { metadata: { name: "api" }, spec: { ports: [{ port: 443 }] } } as KubeObject,
      ),
    listEndpointSlices: () =>
      Promise.resolve(
        port === undefined ? [] : [{
          metadata: { name: "api-1" },
          addressType: "IPv4",
          endpoints: [{ addresses: ["127.0.0.1"] }],
          ports: [{ port }],
        } as unknown as KubeObject],
      ),
  };
}

const API = apiServiceInfo({
  metadata: { name: "v1.wardle.example.com" },
  spec: { group: "wardle.example.com", version: "v1", service: { namespace: "ns", name: "api" } },
} as KubeObject);

function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test("ProxyTransport.send() reports what kept it from the extension in Go's words", async () => {
  const ca = await createCA("front-proxy-ca");
  const client = await issueCertificate({ ca, commonName: "front-proxy-client", usages: "client" });
  const port = closedPort();
  const transport = new ProxyTransport({
    endpoints: endpoints(port),
    clientCertPem: client.certPem,
    clientKeyPem: client.keyPem,
  });
  try {
    const err = await transport.send(API, { method: "GET", path: "/apis", headers: {} }).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(err instanceof ProxyError);
    assert.equal(err.stage, "transport");
    assert.equal(err.message, `dial tcp 127.0.0.1:${port}: connect: connection refused`);
  } finally {
    transport.close();
  }
  const none = new ProxyTransport({
    endpoints: endpoints(undefined),
    clientCertPem: client.certPem,
    clientKeyPem: client.keyPem,
  });
  const err = await none.send(API, { method: "GET", path: "/apis", headers: {} }).then(
    () => undefined,
    (e) => e,
  );
  assert.ok(err instanceof ProxyError);
  assert.equal(err.stage, "resolve");
  assert.equal(err.message, 'no endpoints available for service "api"');
  none.close();
});
