import assert from "node:assert/strict";
import { ResourceHandler } from "../../../apiserver/http/resource_handler.ts";
import { parseRequestInfo } from "../../../apiserver/http/request_info.ts";
import { StatusError } from "../../../shared/errors/status_error.ts";
import { withRegistryHarness } from "../../support/registry_harness.ts";
import { testConn } from "../../support/test_conn.ts";

Deno.test("ResourceHandler serves only the verbs of its table", async () => {
  await withRegistryHarness("resource_handler_", async ({ registry }) => {
    const resources = new ResourceHandler({
      registry,
      verbs: { get: () => Promise.resolve(new Response("got")) },
      patchAppliers: new Map(),
    });
    assert.deepEqual([...resources.servedVerbs()], ["get"]);
    const call = (method: string, path: string) => {
      const url = new URL(`https://h${path}`);
      return resources.handle(
        new Request(url, { method }),
        testConn(),
        url,
        parseRequestInfo(method, url),
        undefined,
        [],
      );
    };
    assert.equal(await (await call("GET", "/api/v1/namespaces/a/configmaps/x")).text(), "got");
    await assert.rejects(
      async () => await call("GET", "/api/v1/namespaces/a/configmaps"),
      (err) => err instanceof StatusError && err.code === 405,
      "list has no handler",
    );
    await assert.rejects(
      async () => await call("GET", "/api/v1/namespaces/a/nothings/x"),
      (err) => err instanceof StatusError && err.code === 404,
    );
  });
});
