/**
 * End to end with the real kubectl against a CustomResourceDefinition and its instances:
 * apply the definition, wait for Established, apply / get / get -o wide / patch / delete of
 * instances, `get all` with the `all` category, short names, and deleting the definition
 * removing its instances. Skips where kubectl is absent.
 */
import assert from "node:assert/strict";
import {
  kubectlFor,
  kubectlOk as ok,
  runKubectl as kubectl,
  skipWithoutKubectl,
} from "../support/kubectl.ts";
import { eventually } from "../support/eventually.ts";
import { startTestServer } from "../support/test_server.ts";
import { cronTab, cronTabCrd, GROUP } from "./_crd_helpers.ts";

Deno.test({
  name: "kubectl applies a CRD, waits for Established and manages its instances",
  ignore: skipWithoutKubectl("the kubectl custom resource tests"),
  async fn() {
    const s = await startTestServer();
    try {
      const k = kubectlFor(s);
      const crdName = `crontabs.${GROUP}`;
      assert.match(
        ok(await kubectl(k, ["apply", "-f", "-"], JSON.stringify(cronTabCrd()))),
        new RegExp(`customresourcedefinition.apiextensions.k8s.io/${crdName} created`),
      );
      ok(
        await kubectl(k, [
          "wait",
          "--for=condition=Established",
          `crd/${crdName}`,
          "--timeout=60s",
        ]),
      );
      // Discovery is cached by kubectl: the first apply of an instance may need a fresh one.
      await eventually("the instance applied", async () => {
        const r = await kubectl(k, ["apply", "-f", "-"], JSON.stringify(cronTab("web")));
        return r.code === 0 ? r.stdout : undefined;
      });
      const table = ok(await kubectl(k, ["get", "crontabs"]));
      assert.match(table, /^NAME\s+SPEC\s+REPLICAS\s+READY\s+AGE\n/);
      // No Ready condition: the cell is null, which kubectl prints blank.
      assert.match(table, /\nweb\s+\* \* \* \* \*\/5\s+1\s+\d+s\n/);
      const wide = ok(await kubectl(k, ["get", "ct", "-o", "wide"]));
      assert.match(wide, /^NAME\s+SPEC\s+REPLICAS\s+READY\s+IMAGE\s+AGE\n/);
      assert.match(wide, /\nweb\s+.*my-cron-image/);
      // Apply again with a change (a patch of the existing object).
      const changed = cronTab("web", { image: "new-image" });
      assert.match(
        ok(await kubectl(k, ["apply", "-f", "-"], JSON.stringify(changed))),
        /crontab.stable.example.com\/web configured/,
      );
      ok(
        await kubectl(k, [
          "patch",
          "crontab",
          "web",
          "--type=merge",
          "-p",
          '{"spec":{"replicas":4}}',
        ]),
      );
      const got = JSON.parse(ok(await kubectl(k, ["get", "crontab", "web", "-o", "json"])));
      assert.equal(got.spec.image, "new-image");
      assert.equal(got.spec.replicas, 4);
      ok(await kubectl(k, ["scale", "crontab", "web", "--replicas=2"]));
      const scaled = JSON.parse(ok(await kubectl(k, ["get", "crontab", "web", "-o", "json"])));
      assert.equal(scaled.spec.replicas, 2);
      const all = ok(await kubectl(k, ["get", "all"]));
      assert.match(all, /crontab\.stable\.example\.com\/web/);
      ok(await kubectl(k, ["apply", "-f", "-"], JSON.stringify(cronTab("other"))));
      assert.match(ok(await kubectl(k, ["delete", "crontab", "other"])), /deleted/);
      assert.match(
        ok(await kubectl(k, ["delete", "crd", crdName, "--timeout=60s"])),
        /deleted/,
      );
      const gone = await kubectl(k, ["get", "crd", crdName]);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /NotFound/);
      // Defined again, it has no instances: deleting the definition deleted `web`.
      ok(await kubectl(k, ["apply", "-f", "-"], JSON.stringify(cronTabCrd())));
      ok(await kubectl(k, ["wait", "--for=condition=Established", `crd/${crdName}`]));
      const empty = await eventually("the resource served again", async () => {
        const r = await kubectl(k, ["get", "crontabs"]);
        return r.code === 0 ? r : undefined;
      });
      assert.match(empty.stderr, /No resources found in default namespace/);
    } finally {
      await s.close();
    }
  },
});
