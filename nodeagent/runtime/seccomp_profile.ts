/**
 * Seccomp profile resolution as the spec states it: `privileged` runs Unconfined; a container's
 * profile wins over the pod's; an unset profile inherits the pod's, else the node default
 * (RuntimeDefault with `seccompDefault`, Unconfined otherwise); `Localhost` needs
 * `localhostProfile`, a JSON file under `<root-dir>/seccomp` that must exist, or container
 * creation fails with `CreateContainerError`.
 *
 * @module
 */
import { type ContainerSpec, CreateContainerError, type PodInfo } from "./runtime.ts";

/** The resolved profile. */
export interface ResolvedSeccomp {
  /** `Unconfined`, `RuntimeDefault` or `Localhost`. */
  type: "Unconfined" | "RuntimeDefault" | "Localhost";
  /** Absolute profile path with `Localhost`. */
  localhostPath?: string;
  /** The parsed profile with `Localhost`. */
  profile?: { defaultAction: string; syscalls?: unknown[] };
}

const ACTIONS = [
  "SCMP_ACT_ERRNO",
  "SCMP_ACT_ALLOW",
  "SCMP_ACT_KILL_PROCESS",
  "SCMP_ACT_KILL_THREAD",
  "SCMP_ACT_KILL",
  "SCMP_ACT_TRAP",
  "SCMP_ACT_NOTIFY",
  "SCMP_ACT_TRACE",
  "SCMP_ACT_LOG",
];

/**
 * Resolves the profile a container runs with.
 *
 * @throws {CreateContainerError} for a missing, escaping, unreadable or invalid Localhost profile
 *   or an unknown type.
 */
export async function resolveSeccompProfile(
  pod: PodInfo,
  container: ContainerSpec,
  opts: { rootDir: string; seccompDefault: boolean },
): Promise<ResolvedSeccomp> {
  if (container.securityContext?.privileged) return { type: "Unconfined" };
  const p = container.securityContext?.seccompProfile ?? pod.securityContext?.seccompProfile;
  const prefix = `failed to generate security options for container "${container.name}"`;
  if (!p) return { type: opts.seccompDefault ? "RuntimeDefault" : "Unconfined" };
  if (p.type === "Unconfined" || p.type === "RuntimeDefault") return { type: p.type };
  if (p.type !== "Localhost") {
    throw new CreateContainerError(
      `${prefix}: unknown seccomp profile type ${JSON.stringify(p.type)}`,
    );
  }
  const rel = p.localhostProfile ?? "";
  if (!rel) {
    throw new CreateContainerError(`${prefix}: localhostProfile must be set with type Localhost`);
  }
  const parts = rel.split("/");
  if (rel.startsWith("/") || parts.some((s) => s === ".." || s === "")) {
    throw new CreateContainerError(
      `${prefix}: localhostProfile ${JSON.stringify(rel)} must be a relative path without ".."`,
    );
  }
  const path = `${opts.rootDir.replace(/\/+$/, "")}/seccomp/${rel}`;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound
      ? "no such file or directory"
      : (e as Error).message;
    throw new CreateContainerError(
      `${prefix}: failed to generate seccomp spec opts: cannot load seccomp profile "${path}": open ${path}: ${why}`,
    );
  }
  let profile: unknown;
  try {
    profile = JSON.parse(text);
  } catch (e) {
    throw new CreateContainerError(
      `${prefix}: failed to generate seccomp spec opts: decoding seccomp profile "${path}" failed: ${
        (e as Error).message
      }`,
    );
  }
  const prof = profile as { defaultAction?: unknown; syscalls?: unknown };
  if (
    typeof profile !== "object" || profile === null || typeof prof.defaultAction !== "string" ||
    !ACTIONS.includes(prof.defaultAction) ||
    (prof.syscalls !== undefined && !Array.isArray(prof.syscalls))
  ) {
    throw new CreateContainerError(
      `${prefix}: failed to generate seccomp spec opts: seccomp profile "${path}" is invalid: ` +
        `defaultAction must be one of ${ACTIONS.join(", ")} and syscalls a list`,
    );
  }
  return {
    type: "Localhost",
    localhostPath: path,
    profile: prof as ResolvedSeccomp["profile"] & object,
  };
}
