/**
 * The Container Runtime Interface messages the agent uses (`runtime.v1`), defined here as
 * protobufjs descriptors with the field numbers of the public cri-api `api.proto`: Version,
 * Status, ListPodSandbox, ListContainers, ContainerStatus, StopContainer, RemoveContainer and
 * CheckpointContainer. Unknown fields in answers are skipped by the decoder, so newer runtimes
 * work.
 *
 * @module
 */
import protobuf from "protobufjs";

type Fields = Record<string, { type: string; id: number; rule?: "repeated"; keyType?: string }>;

const str = (id: number) => ({ type: "string", id });
const map = (id: number) => ({ keyType: "string", type: "string", id });
const i64 = (id: number) => ({ type: "int64", id });

const messages: Record<string, { fields: Fields }> = {
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
  ImageSpec: { fields: { image: str(1), annotations: map(2) } },
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
};

const enums = {
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
