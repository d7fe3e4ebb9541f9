import assert from "node:assert/strict";
import {
  admissionFlagErrors,
  ALL_ORDERED_PLUGINS,
  buildAdmissionPlugins,
  DEFAULT_ON_PLUGINS,
  enabledPluginNames,
} from "../../../apiserver/admission/plugin_names.ts";
import { parseServerOptions } from "../../../apiserver/options.ts";

Deno.test("enabledPluginNames() gives kube 1.32's default set in its order", () => {
  const names = enabledPluginNames([], []);
  assert.deepEqual(names, ALL_ORDERED_PLUGINS.filter((n) => DEFAULT_ON_PLUGINS.has(n)));
  assert.equal(names[0], "NamespaceLifecycle");
  assert.ok(names.indexOf("LimitRanger") < names.indexOf("ServiceAccount"));
  assert.ok(
    names.indexOf("MutatingAdmissionWebhook") < names.indexOf("ValidatingAdmissionWebhook"),
  );
  assert.equal(names.at(-1), "ResourceQuota");
  assert.ok(!names.includes("NodeRestriction"));
});

Deno.test("enabledPluginNames() adds enabled plugins in order and drops disabled ones", () => {
  const names = enabledPluginNames(["NodeRestriction", "AlwaysDeny"], ["ServiceAccount"]);
  assert.ok(!names.includes("ServiceAccount"));
  assert.ok(names.indexOf("LimitRanger") < names.indexOf("NodeRestriction"));
  assert.ok(names.indexOf("NodeRestriction") < names.indexOf("TaintNodesByCondition"));
  assert.equal(names.at(-1), "AlwaysDeny");
});

Deno.test("admissionFlagErrors() reports kube's messages", () => {
  assert.deepEqual(admissionFlagErrors(["NodeRestriction"], ["ServiceAccount"]), []);
  assert.deepEqual(admissionFlagErrors(["X", "EventRateLimit", "Priority"], ["Y", "Priority"]), [
    'enable-admission-plugins plugin "X" is unknown',
    'enable-admission-plugins plugin "EventRateLimit" is not supported by this server',
    'disable-admission-plugins plugin "Y" is unknown',
    "[Priority] in enable-admission-plugins and disable-admission-plugins overlapped",
  ]);
  // Disabling a known plugin this server lacks is fine.
  assert.deepEqual(admissionFlagErrors([], ["EventRateLimit"]), []);
});

Deno.test("parseServerOptions() reads the admission flags with the other problems", () => {
  const ok = parseServerOptions([
    "--enable-admission-plugins=NodeRestriction",
    "--enable-admission-plugins=AlwaysAdmit",
    "--disable-admission-plugins=ServiceAccount,LimitRanger",
  ]);
  assert.ok(ok.ok);
  assert.deepEqual(ok.options.admission.enablePlugins, ["NodeRestriction", "AlwaysAdmit"]);
  assert.ok(!ok.options.admission.plugins.includes("LimitRanger"));
  assert.equal(ok.options.admission.plugins[0], "AlwaysAdmit");
  const bad = parseServerOptions(["--enable-admission-plugins=Nope", "--secure-port=x"]);
  assert.ok(!bad.ok);
  assert.equal(bad.errors.length, 2);
});

Deno.test("buildAdmissionPlugins() builds the named plugins it has factories for", () => {
  const built: string[] = [];
  const factories = Object.fromEntries(
    ALL_ORDERED_PLUGINS.map((n) => [n, () => (built.push(n), { name: n })]),
  );
  // deno-lint-ignore no-explicit-any
  const plugins = buildAdmissionPlugins(["NamespaceLifecycle", "Priority"], factories as any);
  assert.deepEqual(plugins.map((p) => p.name), ["NamespaceLifecycle", "Priority"]);
  assert.deepEqual(built, ["NamespaceLifecycle", "Priority"]);
});
