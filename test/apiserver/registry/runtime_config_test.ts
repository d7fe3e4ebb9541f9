import assert from "node:assert/strict";
import {
  checkRuntimeConfig,
  parseRuntimeConfig,
  runtimeConfigServes,
} from "../../../apiserver/registry/runtime_config.ts";

const KINDS = [
  { group: "", version: "v1", plural: "pods" },
  { group: "batch", version: "v1", plural: "jobs" },
  { group: "batch", version: "v1", plural: "cronjobs" },
  { group: "storage.k8s.io", version: "v1beta1", plural: "volumeattributesclasses" },
  { group: "certificates.k8s.io", version: "v1alpha1", plural: "clustertrustbundles" },
];
const [pods, jobs, cronjobs, vac, ctb] = KINDS;

function parse(...values: string[]) {
  const errors: string[] = [];
  const config = parseRuntimeConfig(values, errors);
  return { config, errors };
}

Deno.test("runtimeConfigServes() serves GA versions only by default", () => {
  const { config } = parse();
  assert.deepEqual(KINDS.map((k) => runtimeConfigServes(config, k)), [
    true,
    true,
    true,
    false,
    false,
  ]);
});

Deno.test("runtimeConfigServes() applies stability keys, then versions, then resources", () => {
  const { config, errors } = parse(
    "api/all=false,api/ga=true,batch/v1=false",
    "batch/v1/cronjobs,storage.k8s.io/v1beta1",
  );
  assert.deepEqual(errors, []);
  assert.equal(runtimeConfigServes(config, pods), true);
  assert.equal(runtimeConfigServes(config, jobs), false);
  assert.equal(runtimeConfigServes(config, cronjobs), true);
  assert.equal(runtimeConfigServes(config, vac), true);
  assert.equal(runtimeConfigServes(config, ctb), false);
  const alpha = parse("api/alpha=true").config;
  assert.equal(runtimeConfigServes(alpha, ctb), true);
  assert.equal(runtimeConfigServes(alpha, vac), false);
  const beta = parse("api/beta=true").config;
  assert.equal(runtimeConfigServes(beta, vac), true);
  const all = parse("api/all=true").config;
  assert.ok(KINDS.every((k) => runtimeConfigServes(all, k)));
});

Deno.test("parseRuntimeConfig() reports kube's messages for bad keys and values", () => {
  const { errors } = parse("api/all=yes,batch/v1=maybe,batch,a/b/c/d,batch/v1/Jobs=false");
  assert.deepEqual(errors, [
    "invalid value api/all=yes",
    'invalid value of batch/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax',
    "runtime-config invalid key batch",
    "runtime-config invalid key a/b/c/d",
    "invalid key batch/v1/Jobs: group/version/resource and resource is always lowercase " +
    'plural, not "Jobs"',
  ]);
});

Deno.test("parseRuntimeConfig() keeps a key's last value; no value means true", () => {
  const { config, errors } = parse("batch/v1=maybe,batch/v1=0", "storage.k8s.io/v1beta1");
  assert.deepEqual(errors, []);
  assert.equal(runtimeConfigServes(config, jobs), false);
  assert.equal(runtimeConfigServes(config, vac), true);
});

Deno.test("checkRuntimeConfig() refuses unknown versions and resources and the core group", () => {
  const { config } = parse("batch/v9=false,batch/v1/widgets=true,nothere.io/v1,api/legacy=false");
  assert.deepEqual(checkRuntimeConfig(config, KINDS), [
    "group version batch/v9 that has not been registered",
    "resource batch/v1/widgets that has not been registered",
    "unknown api groups nothere.io",
    "the core API (api/v1) and its resources cannot be disabled: the server runs on them",
  ]);
  assert.deepEqual(checkRuntimeConfig(parse("batch/v1=false,api/v1=true").config, KINDS), []);
});
