/**
 * The Container Runtime Interface messages the agent uses (`runtime.v1`), defined here as
 * protobufjs descriptors with the field numbers of the public cri-api `api.proto`: Version,
 * Status, RunPodSandbox, StopPodSandbox, RemovePodSandbox, ListPodSandbox, CreateContainer,
 * StartContainer, ListContainers, ContainerStatus, StopContainer, RemoveContainer,
 * CheckpointContainer, ListContainerStats and ExecSync of the RuntimeService; ImageStatus and
 * PullImage of the ImageService.
 * Only the fields the agent sets or reads are declared; unknown fields in answers are skipped
 * by the decoder, so newer runtimes work.
 *
 * @module
 */
import protobuf from "protobufjs";

type Fields = Record<string, { type: string; id: number; rule?: "repeated"; keyType?: string }>;
type MessageDef = { fields: Fields; nested?: Record<string, { values: Record<string, number> }> };

const str = (id: number) => ({ type: "string", id });
const map = (id: number) => ({ keyType: "string", type: "string", id });
const i64 = (id: number) => ({ type: "int64", id });
const bool = (id: number) => ({ type: "bool", id });
const msg = (type: string, id: number) => ({ type, id });
const list = (type: string, id: number) => ({ type, id, rule: "repeated" as const });

/** The messages that create pods and containers and pull images. */
const creation: Record<string, MessageDef> = {
  Int64Value: { fields: { value: i64(1) } },
  NamespaceOption: {
    fields: {
      network: msg("NamespaceMode", 1),
      pid: msg("NamespaceMode", 2),
      ipc: msg("NamespaceMode", 3),
      targetId: str(4),
    },
  },
  SecurityProfile: {
    fields: { profileType: msg("ProfileType", 1), localhostRef: str(2) },
    nested: { ProfileType: { values: { RuntimeDefault: 0, Unconfined: 1, Localhost: 2 } } },
  },
  LinuxSandboxSecurityContext: {
    fields: {
      namespaceOptions: msg("NamespaceOption", 1),
      runAsUser: msg("Int64Value", 3),
      readonlyRootfs: bool(4),
      supplementalGroups: list("int64", 5),
      privileged: bool(6),
      runAsGroup: msg("Int64Value", 8),
      seccomp: msg("SecurityProfile", 9),
    },
  },
  LinuxPodSandboxConfig: {
    fields: {
      cgroupParent: str(1),
      securityContext: msg("LinuxSandboxSecurityContext", 2),
      sysctls: map(3),
    },
  },
  PodSandboxConfig: {
    fields: {
      metadata: msg("PodSandboxMetadata", 1),
      hostname: str(2),
      logDirectory: str(3),
      labels: map(6),
      annotations: map(7),
      linux: msg("LinuxPodSandboxConfig", 8),
    },
  },
  RunPodSandboxRequest: {
    fields: { config: msg("PodSandboxConfig", 1), runtimeHandler: str(2) },
  },
  RunPodSandboxResponse: { fields: { podSandboxId: str(1) } },
  StopPodSandboxRequest: { fields: { podSandboxId: str(1) } },
  StopPodSandboxResponse: { fields: {} },
  RemovePodSandboxRequest: { fields: { podSandboxId: str(1) } },
  RemovePodSandboxResponse: { fields: {} },
  KeyValue: { fields: { key: str(1), value: str(2) } },
  Mount: {
    fields: {
      containerPath: str(1),
      hostPath: str(2),
      readonly: bool(3),
      selinuxRelabel: bool(4),
      propagation: msg("MountPropagation", 5),
    },
  },
  Capability: {
    fields: { addCapabilities: list("string", 1), dropCapabilities: list("string", 2) },
  },
  LinuxContainerSecurityContext: {
    fields: {
      capabilities: msg("Capability", 1),
      privileged: bool(2),
      namespaceOptions: msg("NamespaceOption", 3),
      runAsUser: msg("Int64Value", 5),
      runAsUsername: str(6),
      readonlyRootfs: bool(7),
      supplementalGroups: list("int64", 8),
      noNewPrivs: bool(11),
      runAsGroup: msg("Int64Value", 12),
      maskedPaths: list("string", 13),
      readonlyPaths: list("string", 14),
      seccomp: msg("SecurityProfile", 15),
    },
  },
  LinuxContainerConfig: {
    fields: { securityContext: msg("LinuxContainerSecurityContext", 2) },
  },
  ContainerConfig: {
    fields: {
      metadata: msg("ContainerMetadata", 1),
      image: msg("ImageSpec", 2),
      command: list("string", 3),
      args: list("string", 4),
      workingDir: str(5),
      envs: list("KeyValue", 6),
      mounts: list("Mount", 7),
      labels: map(9),
      annotations: map(10),
      logPath: str(11),
      stdin: bool(12),
      stdinOnce: bool(13),
      tty: bool(14),
      linux: msg("LinuxContainerConfig", 15),
    },
  },
  CreateContainerRequest: {
    fields: {
      podSandboxId: str(1),
      config: msg("ContainerConfig", 2),
      sandboxConfig: msg("PodSandboxConfig", 3),
    },
  },
  CreateContainerResponse: { fields: { containerId: str(1) } },
  StartContainerRequest: { fields: { containerId: str(1) } },
  StartContainerResponse: { fields: {} },
  Image: {
    fields: {
      id: str(1),
      repoTags: list("string", 2),
      repoDigests: list("string", 3),
      size: { type: "uint64", id: 4 },
      spec: msg("ImageSpec", 7),
      pinned: bool(8),
    },
  },
  ImageStatusRequest: { fields: { image: msg("ImageSpec", 1), verbose: bool(2) } },
  ImageStatusResponse: { fields: { image: msg("Image", 1), info: map(2) } },
  PullImageRequest: {
    fields: { image: msg("ImageSpec", 1), sandboxConfig: msg("PodSandboxConfig", 3) },
  },
  PullImageResponse: { fields: { imageRef: str(1) } },
};

/** ListContainerStats: CPU and memory of containers. */
const statistics: Record<string, MessageDef> = {
  UInt64Value: { fields: { value: { type: "uint64", id: 1 } } },
  ContainerStatsFilter: {
    fields: { id: str(1), podSandboxId: str(2), labelSelector: map(3) },
  },
  ListContainerStatsRequest: { fields: { filter: msg("ContainerStatsFilter", 1) } },
  ContainerAttributes: {
    fields: {
      id: str(1),
      metadata: msg("ContainerMetadata", 2),
      labels: map(3),
      annotations: map(4),
    },
  },
  CpuUsage: {
    fields: {
      timestamp: i64(1),
      usageCoreNanoSeconds: msg("UInt64Value", 2),
      usageNanoCores: msg("UInt64Value", 3),
    },
  },
  MemoryUsage: {
    fields: {
      timestamp: i64(1),
      workingSetBytes: msg("UInt64Value", 2),
      availableBytes: msg("UInt64Value", 3),
      usageBytes: msg("UInt64Value", 4),
      rssBytes: msg("UInt64Value", 5),
    },
  },
  ContainerStats: {
    fields: {
      attributes: msg("ContainerAttributes", 1),
      cpu: msg("CpuUsage", 2),
      memory: msg("MemoryUsage", 3),
    },
  },
  ListContainerStatsResponse: { fields: { stats: list("ContainerStats", 1) } },
};

const messages: Record<string, MessageDef> = {
  ...creation,
  VersionRequest: { fields: { version: str(1) } },
  VersionResponse: {
    fields: {
      version: str(1),
      runtimeName: str(2),
      runtimeVersion: str(3),
      runtimeApiVersion: str(4),
    },
  },
  StatusRequest: { fields: { verbose: { type: "bool", id: 1 } } },
  RuntimeCondition: {
    fields: {
      type: str(1),
      status: { type: "bool", id: 2 },
      reason: str(3),
      message: str(4),
    },
  },
  RuntimeStatus: {
    fields: { conditions: { type: "RuntimeCondition", id: 1, rule: "repeated" } },
  },
  StatusResponse: { fields: { status: { type: "RuntimeStatus", id: 1 }, info: map(2) } },
  PodSandboxMetadata: {
    fields: { name: str(1), uid: str(2), namespace: str(3), attempt: { type: "uint32", id: 4 } },
  },
  PodSandboxStateValue: { fields: { state: { type: "PodSandboxState", id: 1 } } },
  PodSandboxFilter: {
    fields: { id: str(1), state: { type: "PodSandboxStateValue", id: 2 }, labelSelector: map(3) },
  },
  ListPodSandboxRequest: { fields: { filter: { type: "PodSandboxFilter", id: 1 } } },
  PodSandbox: {
    fields: {
      id: str(1),
      metadata: { type: "PodSandboxMetadata", id: 2 },
      state: { type: "PodSandboxState", id: 3 },
      createdAt: i64(4),
      labels: map(5),
      annotations: map(6),
      runtimeHandler: str(7),
    },
  },
  ListPodSandboxResponse: { fields: { items: { type: "PodSandbox", id: 1, rule: "repeated" } } },
  ContainerMetadata: { fields: { name: str(1), attempt: { type: "uint32", id: 2 } } },
  ImageSpec: { fields: { image: str(1), annotations: map(2), userSpecifiedImage: str(18) } },
  ContainerStateValue: { fields: { state: { type: "ContainerState", id: 1 } } },
  ContainerFilter: {
    fields: {
      id: str(1),
      state: { type: "ContainerStateValue", id: 2 },
      podSandboxId: str(3),
      labelSelector: map(4),
    },
  },
  ListContainersRequest: { fields: { filter: { type: "ContainerFilter", id: 1 } } },
  Container: {
    fields: {
      id: str(1),
      podSandboxId: str(2),
      metadata: { type: "ContainerMetadata", id: 3 },
      image: { type: "ImageSpec", id: 4 },
      imageRef: str(5),
      state: { type: "ContainerState", id: 6 },
      createdAt: i64(7),
      labels: map(8),
      annotations: map(9),
    },
  },
  ListContainersResponse: {
    fields: { containers: { type: "Container", id: 1, rule: "repeated" } },
  },
  ContainerStatusRequest: { fields: { containerId: str(1), verbose: { type: "bool", id: 2 } } },
  ContainerStatus: {
    fields: {
      id: str(1),
      metadata: { type: "ContainerMetadata", id: 2 },
      state: { type: "ContainerState", id: 3 },
      createdAt: i64(4),
      startedAt: i64(5),
      finishedAt: i64(6),
      exitCode: { type: "int32", id: 7 },
      image: { type: "ImageSpec", id: 8 },
      imageRef: str(9),
      reason: str(10),
      message: str(11),
      labels: map(12),
      annotations: map(13),
    },
  },
  ContainerStatusResponse: {
    fields: { status: { type: "ContainerStatus", id: 1 }, info: map(2) },
  },
  StopContainerRequest: { fields: { containerId: str(1), timeout: i64(2) } },
  StopContainerResponse: { fields: {} },
  RemoveContainerRequest: { fields: { containerId: str(1) } },
  RemoveContainerResponse: { fields: {} },
  CheckpointContainerRequest: {
    fields: { containerId: str(1), location: str(2), timeout: i64(3) },
  },
  CheckpointContainerResponse: { fields: {} },
  ...statistics,
  ExecSyncRequest: {
    fields: { containerId: str(1), cmd: list("string", 2), timeout: i64(3) },
  },
  ExecSyncResponse: {
    fields: {
      stdout: { type: "bytes", id: 1 },
      stderr: { type: "bytes", id: 2 },
      exitCode: { type: "int32", id: 3 },
    },
  },
};

const enums = {
  NamespaceMode: { values: { POD: 0, CONTAINER: 1, NODE: 2, TARGET: 3 } },
  MountPropagation: {
    values: {
      PROPAGATION_PRIVATE: 0,
      PROPAGATION_HOST_TO_CONTAINER: 1,
      PROPAGATION_BIDIRECTIONAL: 2,
    },
  },
  PodSandboxState: { values: { SANDBOX_READY: 0, SANDBOX_NOTREADY: 1 } },
  ContainerState: {
    values: {
      CONTAINER_CREATED: 0,
      CONTAINER_RUNNING: 1,
      CONTAINER_EXITED: 2,
      CONTAINER_UNKNOWN: 3,
    },
  },
};

/** The protobuf root holding `runtime.v1`. */
export const criRoot: protobuf.Root = protobuf.Root.fromJSON({
  nested: { runtime: { nested: { v1: { nested: { ...messages, ...enums } } } } },
});

/** The gRPC service path prefix of the runtime service. */
export const RUNTIME_SERVICE = "/runtime.v1.RuntimeService/";
/** The gRPC service path prefix of the image service. */
export const IMAGE_SERVICE = "/runtime.v1.ImageService/";

/** A message type by its short name (`ListContainersRequest`). */
export function criType(name: string): protobuf.Type {
  return criRoot.lookupType(`runtime.v1.${name}`);
}

/** Encodes a plain object as the named message. */
export function encodeCri(name: string, value: Record<string, unknown>): Uint8Array {
  const t = criType(name);
  return t.encode(t.fromObject(value)).finish();
}

/**
 * Decodes the named message into a plain object: enums as names, 64-bit integers as decimal
 * strings, defaults filled in.
 */
export function decodeCri<T>(name: string, bytes: Uint8Array): T {
  const t = criType(name);
  return t.toObject(t.decode(bytes), {
    enums: String,
    longs: String,
    defaults: true,
    arrays: true,
    objects: true,
  }) as T;
}
