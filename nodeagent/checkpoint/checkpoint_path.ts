/**
 * The checkpoint archive's location:
 * `<root-dir>/checkpoints/checkpoint-<pod>_<namespace>-<container>-<RFC 3339 time>.tar`.
 * Names are validated as Kubernetes names first, so the path can never leave the directory.
 *
 * @module
 */
import { formatTime } from "../../shared/api/meta/v1/time.ts";

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Whether the three names are valid namespace (label), pod (subdomain) and container (label) names. */
export function validCheckpointNames(namespace: string, pod: string, container: string): boolean {
  return DNS_LABEL.test(namespace) && pod.length <= 253 && DNS_SUBDOMAIN.test(pod) &&
    DNS_LABEL.test(container);
}

/** Formats a time as Go's `time.RFC3339` in UTC (`2024-02-29T18:28:17Z`). */
export function rfc3339Seconds(ms: number): string {
  return formatTime(ms);
}

/**
 * Returns the archive path for a container checkpoint taken at `now`.
 *
 * @throws {RangeError} when a name is not a valid Kubernetes name.
 */
export function checkpointArchivePath(
  rootDir: string,
  names: { namespace: string; pod: string; container: string },
  now: number,
): string {
  const { namespace, pod, container } = names;
  if (!validCheckpointNames(namespace, pod, container)) {
    throw new RangeError(`Invalid checkpoint target ${namespace}/${pod}/${container}`);
  }
  const dir = `${rootDir.replace(/\/+$/, "")}/checkpoints`;
  const file = `checkpoint-${pod}_${namespace}-${container}-${rfc3339Seconds(now)}.tar`;
  if (file.includes("/") || file.startsWith(".")) {
    throw new RangeError(`Invalid checkpoint file ${file}`);
  }
  return `${dir}/${file}`;
}
