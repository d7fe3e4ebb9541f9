import assert from "node:assert/strict";
import { resolveSeccompProfile } from "../../../nodeagent/runtime/seccomp_profile.ts";
import {
  type ContainerSpec,
  CreateContainerError,
  type PodInfo,
} from "../../../nodeagent/runtime/runtime.ts";

Deno.test("resolveSeccompProfile() applies the container, pod and privileged rules", async (t) => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/seccomp/profiles`, { recursive: true });
    await Deno.writeTextFile(
      `${root}/seccomp/profiles/audit.json`,
      JSON.stringify({ defaultAction: "SCMP_ACT_LOG" }),
    );
    await Deno.writeTextFile(`${root}/seccomp/bad.json`, JSON.stringify({ defaultAction: "NOPE" }));
    const local = (p: string) => ({ type: "Localhost", localhostProfile: p });
    const cases: {
      name: string;
      pod?: PodInfo["securityContext"];
      c?: ContainerSpec["securityContext"];
      seccompDefault?: boolean;
      want?: string;
      error?: RegExp;
    }[] = [
      { name: "nothing set is Unconfined", want: "Unconfined" },
      {
        name: "nothing set with seccompDefault is RuntimeDefault",
        seccompDefault: true,
        want: "RuntimeDefault",
      },
      {
        name: "container inherits the pod",
        pod: { seccompProfile: { type: "RuntimeDefault" } },
        want: "RuntimeDefault",
      },
      {
        name: "container wins over the pod",
        pod: { seccompProfile: { type: "RuntimeDefault" } },
        c: { seccompProfile: { type: "Unconfined" } },
        want: "Unconfined",
      },
      {
        name: "privileged is always Unconfined",
        pod: { seccompProfile: local("missing.json") },
        c: { privileged: true, seccompProfile: local("missing.json") },
        want: "Unconfined",
      },
      {
        name: "existing Localhost profile",
        c: { seccompProfile: local("profiles/audit.json") },
        want: "Localhost",
      },
      {
        name: "inherited missing Localhost profile fails",
        pod: { seccompProfile: local("missing.json") },
        error:
          /cannot load seccomp profile ".*\/seccomp\/missing.json": open .*: no such file or directory/,
      },
      {
        name: "Localhost without a path fails",
        c: { seccompProfile: { type: "Localhost" } },
        error: /must be set/,
      },
      {
        name: "escaping path fails",
        c: { seccompProfile: local("../etc/passwd") },
        error: /without "\.\."/,
      },
      {
        name: "absolute path fails",
        c: { seccompProfile: local("/etc/passwd") },
        error: /relative path/,
      },
      {
        name: "invalid profile fails",
        c: { seccompProfile: local("bad.json") },
        error: /is invalid/,
      },
      {
        name: "unknown type fails",
        c: { seccompProfile: { type: "Strict" } },
        error: /unknown seccomp profile type/,
      },
    ];
    for (const tc of cases) {
      await t.step(tc.name, async () => {
        const pod: PodInfo = { namespace: "ns", name: "p", uid: "u1", securityContext: tc.pod };
        const c: ContainerSpec = { name: "c", securityContext: tc.c };
        const run = resolveSeccompProfile(pod, c, {
          rootDir: root,
          seccompDefault: tc.seccompDefault ?? false,
        });
        if (tc.error) {
          const err = await run.then(() => undefined, (e) => e);
          assert.ok(err instanceof CreateContainerError, String(err));
          assert.equal(err.reason, "CreateContainerError");
          assert.match(err.message, tc.error);
        } else {
          const got = await run;
          assert.equal(got.type, tc.want);
          if (got.type === "Localhost") {
            assert.equal(got.localhostPath, `${root}/seccomp/profiles/audit.json`);
          }
        }
      });
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
