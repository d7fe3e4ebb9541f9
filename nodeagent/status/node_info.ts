/**
 * `status.nodeInfo` as the kubelet reports it (`NodeSystemInfo`).
 *
 * @module
 */

/** The wire shape of `status.nodeInfo`. */
export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

/** Maps Deno's architecture names to Go's (`GOARCH`), which Kubernetes uses. */
export function goArch(arch: string = Deno.build.arch): string {
  return ({ x86_64: "amd64", aarch64: "arm64" } as Record<string, string>)[arch] ?? arch;
}

/** Reads PRETTY_NAME from an os-release file's text (the kubelet's OS image). */
export function osImageFrom(osRelease: string): string {
  for (const line of osRelease.split("\n")) {
    const m = /^PRETTY_NAME=(.*)$/.exec(line.trim());
    if (m) return m[1].replace(/^(["'])(.*)\1$/, "$2");
  }
  return "Linux";
}

async function firstReadable(paths: string[]): Promise<string> {
  for (const p of paths) {
    try {
      return (await Deno.readTextFile(p)).trim();
    } catch {
      // try the next one
    }
  }
  return "";
}

/** Reads the node's system information. */
export async function readNodeInfo(versions: {
  /** The runtime's `<name>://<version>`, e.g. `process://0.1.0` or `containerd://1.7.2`. */
  containerRuntimeVersion: string;
  /** The agent's version, reported as `kubeletVersion`. */
  agentVersion: string;
}): Promise<NodeSystemInfo> {
  return {
    machineID: await firstReadable(["/etc/machine-id", "/var/lib/dbus/machine-id"]),
    systemUUID: (await firstReadable(["/sys/class/dmi/id/product_uuid"])).toLowerCase(),
    bootID: await firstReadable(["/proc/sys/kernel/random/boot_id"]),
    kernelVersion: Deno.osRelease(),
    osImage: osImageFrom(await firstReadable(["/etc/os-release", "/usr/lib/os-release"])),
    containerRuntimeVersion: versions.containerRuntimeVersion,
    kubeletVersion: versions.agentVersion,
    kubeProxyVersion: "",
    operatingSystem: Deno.build.os,
    architecture: goArch(),
  };
}
