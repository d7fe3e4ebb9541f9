/**
 * The schema declaration of core/v1: kinds served, required fields, enums, defaults and merge
 * markers of the built-in core kinds (Namespace, Node, Pod, ConfigMap, Secret, ServiceAccount,
 * Event) and the types they use. Field names and types come from the core/v1 descriptors.
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema, mergeList } from "../../schema/group_schema.ts";

const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const TAINT_EFFECTS = ["NoExecute", "NoSchedule", "PreferNoSchedule"];
const CONDITION_STATUS = ["False", "True", "Unknown"];

/** core/v1. */
export const coreV1Schema: GroupSchema = {
  package: "core.v1",
  group: "",
  version: "v1",
  openApiPrefix: "io.k8s.api.core.v1",
  kinds: [
    "ConfigMap",
    "ComponentStatus",
    "ComponentStatusList",
    "ConfigMapList",
    "Endpoints",
    "EndpointsList",
    "Event",
    "EventList",
    "LimitRange",
    "LimitRangeList",
    "Namespace",
    "NamespaceList",
    "Node",
    "NodeList",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "PersistentVolumeClaimList",
    "PersistentVolumeList",
    "Pod",
    "PodList",
    "PodTemplate",
    "PodTemplateList",
    "ReplicationController",
    "ReplicationControllerList",
    "ResourceQuota",
    "ResourceQuotaList",
    "Secret",
    "SecretList",
    "Service",
    "ServiceList",
    "ServiceAccount",
    "ServiceAccountList",
    "Binding",
  ],
  types: {
    Pod: {
      description:
        "Pod is a group of containers scheduled together on one node, sharing network and storage.",
      fields: {
        spec: { description: "The desired behaviour of the pod." },
        status: { description: "The most recently observed state of the pod (read-only)." },
      },
    },
    PodList: { required: ["items"] },
    PodSpec: {
      description: "The desired state of a pod.",
      required: ["containers"],
      fields: {
        volumes: {
          ...mergeList("name"),
          patchStrategy: "merge,retainKeys",
          description: "Volumes the pod's containers may mount.",
        },
        initContainers: {
          ...mergeList("name"),
          description: "Containers run to completion, in order, before the app containers start.",
        },
        containers: {
          ...mergeList("name"),
          description: "The containers of the pod. At least one is required; names are unique.",
        },
        ephemeralContainers: mergeList("name"),
        restartPolicy: {
          enum: ["Always", "Never", "OnFailure"],
          default: "Always",
          description: "When containers are restarted after they exit: Always, OnFailure or Never.",
        },
        terminationGracePeriodSeconds: {
          default: 30,
          description: "Seconds the pod is given to stop gracefully after a delete request.",
        },
        dnsPolicy: {
          enum: ["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"],
          default: "ClusterFirst",
        },
        nodeSelector: {
          mapType: "atomic",
          description: "Labels a node must have for the pod to be scheduled on it.",
        },
        nodeName: { description: "The node the pod is bound to; set once by scheduling." },
        imagePullSecrets: mergeList("name"),
        tolerations: ATOMIC_LIST,
        hostAliases: mergeList("ip"),
        readinessGates: ATOMIC_LIST,
        topologySpreadConstraints: mergeList("topologyKey", "whenUnsatisfiable"),
        schedulingGates: mergeList("name"),
        resourceClaims: { ...mergeList("name"), patchStrategy: "merge,retainKeys" },
        preemptionPolicy: { enum: ["Never", "PreemptLowerPriority"] },
        schedulerName: { default: "default-scheduler" },
      },
    },
    PodStatus: {
      description: "The observed state of a pod.",
      fields: {
        phase: {
          enum: ["Failed", "Pending", "Running", "Succeeded", "Unknown"],
          description: "Where the pod is in its lifecycle.",
        },
        conditions: mergeList("type"),
        podIPs: mergeList("ip"),
        hostIPs: { ...ATOMIC_LIST, patchStrategy: "merge", patchMergeKey: "ip" },
        initContainerStatuses: ATOMIC_LIST,
        containerStatuses: ATOMIC_LIST,
        ephemeralContainerStatuses: ATOMIC_LIST,
        qosClass: { enum: ["BestEffort", "Burstable", "Guaranteed"] },
        resourceClaimStatuses: mergeList("name"),
      },
    },
    PodCondition: {
      required: ["type", "status"],
      fields: { status: { enum: CONDITION_STATUS } },
    },
    PodIP: { required: ["ip"] },
    HostIP: { required: ["ip"] },
    Container: {
      description: "A single application container run within a pod.",
      required: ["name"],
      fields: {
        name: { description: "Name of the container, a DNS label unique within the pod." },
        image: { description: "The container image reference." },
        command: {
          ...ATOMIC_LIST,
          description: "Entrypoint array; the image's entrypoint is used when not set.",
        },
        args: {
          ...ATOMIC_LIST,
          description: "Arguments to the entrypoint; the image's CMD is used when not set.",
        },
        workingDir: { description: "The container's working directory." },
        ports: {
          ...mergeList("containerPort", "protocol"),
          description: "Ports the container exposes (informational).",
        },
        envFrom: ATOMIC_LIST,
        env: { ...mergeList("name"), description: "Environment variables of the container." },
        resources: { description: "Compute resources required by this container." },
        resizePolicy: ATOMIC_LIST,
        volumeMounts: {
          ...mergeList("mountPath"),
          description: "Pod volumes to mount into the container's filesystem.",
        },
        volumeDevices: mergeList("devicePath"),
        terminationMessagePath: { default: "/dev/termination-log" },
        terminationMessagePolicy: { enum: ["FallbackToLogsOnError", "File"], default: "File" },
        imagePullPolicy: {
          enum: ["Always", "IfNotPresent", "Never"],
          description:
            "When the image is pulled: Always, Never or IfNotPresent; defaults to Always for " +
            "the latest tag and IfNotPresent otherwise.",
        },
      },
    },
    EphemeralContainer: {
      required: ["name"],
      fields: {
        command: ATOMIC_LIST,
        args: ATOMIC_LIST,
        ports: mergeList("containerPort", "protocol"),
        envFrom: ATOMIC_LIST,
        env: mergeList("name"),
        resizePolicy: ATOMIC_LIST,
        volumeMounts: mergeList("mountPath"),
        volumeDevices: mergeList("devicePath"),
        imagePullPolicy: { enum: ["Always", "IfNotPresent", "Never"] },
        terminationMessagePolicy: { enum: ["FallbackToLogsOnError", "File"] },
      },
    },
    ContainerPort: {
      required: ["containerPort"],
      fields: { protocol: { enum: PROTOCOLS, default: "TCP" } },
    },
    EnvVar: { required: ["name"] },
    VolumeMount: { required: ["name", "mountPath"] },
    VolumeDevice: { required: ["name", "devicePath"] },
    Volume: { required: ["name"] },
    KeyToPath: { required: ["key", "path"] },
    ConfigMapKeySelector: { required: ["key"], structType: "atomic" },
    SecretKeySelector: { required: ["key"], structType: "atomic" },
    ObjectFieldSelector: { required: ["fieldPath"], structType: "atomic" },
    ResourceFieldSelector: { required: ["resource"], structType: "atomic" },
    ConfigMapVolumeSource: { fields: { items: ATOMIC_LIST } },
    SecretVolumeSource: { fields: { items: ATOMIC_LIST } },
    HTTPGetAction: { required: ["port"], fields: { httpHeaders: ATOMIC_LIST } },
    HTTPHeader: { required: ["name", "value"] },
    TCPSocketAction: { required: ["port"] },
    GRPCAction: { required: ["port"] },
    ExecAction: { fields: { command: ATOMIC_LIST } },
    Capabilities: { fields: { add: ATOMIC_LIST, drop: ATOMIC_LIST } },
    Toleration: {
      fields: { operator: { enum: ["Equal", "Exists"] }, effect: { enum: TAINT_EFFECTS } },
    },
    Taint: { required: ["key", "effect"], fields: { effect: { enum: TAINT_EFFECTS } } },
    LocalObjectReference: { structType: "atomic" },
    ObjectReference: { structType: "atomic" },
    ResourceRequirements: { fields: { claims: mergeList("name") } },
    ContainerStatus: { required: ["name"] },
    Node: {
      description: "Node is a worker machine; each node runs a node agent.",
      fields: {
        spec: { description: "The desired configuration of the node." },
        status: { description: "The most recently observed state of the node (read-only)." },
      },
    },
    NodeSpec: {
      fields: {
        podCIDRs: { listType: "set", patchStrategy: "merge" },
        taints: ATOMIC_LIST,
        unschedulable: { description: "Marks the node unschedulable for new pods." },
      },
    },
    NodeStatus: {
      fields: {
        capacity: { description: "Total resources of the node." },
        allocatable: { description: "Resources of the node available for scheduling." },
        phase: { enum: ["Pending", "Running", "Terminated"] },
        conditions: { ...mergeList("type"), description: "Current service state of the node." },
        addresses: { ...mergeList("type"), description: "Addresses reachable at the node." },
        images: ATOMIC_LIST,
        volumesInUse: ATOMIC_LIST,
        volumesAttached: ATOMIC_LIST,
      },
    },
    NodeCondition: {
      required: ["type", "status"],
      fields: { status: { enum: CONDITION_STATUS } },
    },
    NodeAddress: { required: ["type", "address"] },
    DaemonEndpoint: { required: ["Port"] },
    NodeSystemInfo: {
      required: [
        "machineID",
        "systemUUID",
        "bootID",
        "kernelVersion",
        "osImage",
        "containerRuntimeVersion",
        "kubeletVersion",
        "kubeProxyVersion",
        "operatingSystem",
        "architecture",
      ],
    },
    ContainerImage: { fields: { names: ATOMIC_LIST } },
    AttachedVolume: { required: ["name", "devicePath"] },
    Namespace: {
      description: "Namespace gives a scope to names; objects in it are deleted with it.",
    },
    NamespaceSpec: { fields: { finalizers: ATOMIC_LIST } },
    NamespaceStatus: {
      fields: {
        phase: { enum: ["Active", "Terminating"] },
        conditions: mergeList("type"),
      },
    },
    NamespaceCondition: {
      required: ["type", "status"],
      fields: { status: { enum: CONDITION_STATUS } },
    },
    ConfigMap: {
      description: "ConfigMap holds configuration data for pods to consume.",
      fields: {
        data: { description: "Configuration data as UTF-8 strings." },
        binaryData: { description: "Binary configuration data, base64 encoded." },
        immutable: { description: "When true, data cannot be changed after creation." },
      },
    },
    Secret: {
      description: "Secret holds a small amount of sensitive data.",
      fields: {
        data: { description: "Secret data, base64 encoded." },
        stringData: { description: "Write-only convenience: merged into data when stored." },
        type: { description: "Used to facilitate programmatic handling of secret data." },
      },
    },
    ServiceAccount: {
      description: "ServiceAccount is an identity for processes that run in a pod.",
      fields: { secrets: mergeList("name"), imagePullSecrets: ATOMIC_LIST },
    },
    Event: {
      description: "Event is a report of something that happened in the cluster.",
      required: ["metadata", "involvedObject"],
    },
    Binding: { required: ["target"] },
    ConfigMapList: { required: ["items"] },
    EventList: { required: ["items"] },
    NamespaceList: { required: ["items"] },
    NodeList: { required: ["items"] },
    SecretList: { required: ["items"] },
    ServiceAccountList: { required: ["items"] },
    TopologySpreadConstraint: {
      required: ["maxSkew", "topologyKey", "whenUnsatisfiable"],
      fields: { matchLabelKeys: ATOMIC_LIST },
    },
    NodeSelector: { required: ["nodeSelectorTerms"], structType: "atomic" },
    NodeSelectorTerm: {
      structType: "atomic",
      fields: { matchExpressions: ATOMIC_LIST, matchFields: ATOMIC_LIST },
    },
    NodeSelectorRequirement: { required: ["key", "operator"] },
    Service: {
      description: "Service is a named abstraction of a set of pods, with a stable address.",
    },
    ServiceList: { required: ["items"] },
    ServiceSpec: {
      fields: {
        ports: {
          ...mergeList("port", "protocol"),
          patchMergeKey: "port",
          description: "The ports the Service exposes; names are required when there are several.",
        },
        selector: {
          mapType: "atomic",
          description: "Labels of the pods traffic is routed to.",
        },
        clusterIP: {
          description:
            "The Service's virtual IP, allocated from --service-cluster-ip-range when empty, " +
            "or None for a headless Service; cannot change once set.",
        },
        clusterIPs: ATOMIC_LIST,
        type: {
          enum: ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"],
          default: "ClusterIP",
          description:
            "How the Service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName.",
        },
        externalName: { description: "The DNS name an ExternalName Service aliases." },
        externalIPs: ATOMIC_LIST,
        sessionAffinity: { enum: ["ClientIP", "None"], default: "None" },
        loadBalancerSourceRanges: ATOMIC_LIST,
        externalTrafficPolicy: { enum: ["Cluster", "Local"] },
        ipFamilies: ATOMIC_LIST,
        ipFamilyPolicy: { enum: ["PreferDualStack", "RequireDualStack", "SingleStack"] },
        internalTrafficPolicy: { enum: ["Cluster", "Local"] },
      },
    },
    ServicePort: {
      required: ["port"],
      fields: {
        protocol: { enum: PROTOCOLS, default: "TCP" },
        port: { description: "The port the Service answers on." },
        targetPort: { description: "The pods' port (number or name); defaults to port." },
        nodePort: {
          description:
            "The port on every node, allocated from --service-node-port-range when empty.",
        },
      },
    },
    ServiceStatus: { fields: { conditions: mergeList("type") } },
    LoadBalancerStatus: { fields: { ingress: ATOMIC_LIST } },
    LoadBalancerIngress: {
      fields: { ipMode: { enum: ["Proxy", "VIP"] }, ports: ATOMIC_LIST },
    },
    PortStatus: { required: ["port", "protocol"], fields: { protocol: { enum: PROTOCOLS } } },
    Endpoints: {
      description: "Endpoints is the set of addresses and ports that implement a Service.",
      fields: { subsets: ATOMIC_LIST },
    },
    EndpointsList: { required: ["items"] },
    ComponentStatus: { fields: { conditions: mergeList("type") } },
    ComponentStatusList: { required: ["items"] },
    ComponentCondition: { required: ["type", "status"] },
    PodTemplateList: { required: ["items"] },
    LimitRangeList: { required: ["items"] },
    LimitRangeItem: {
      required: ["type"],
      fields: { type: { enum: ["Container", "PersistentVolumeClaim", "Pod"] } },
    },
    LimitRangeSpec: { required: ["limits"], fields: { limits: ATOMIC_LIST } },
    ResourceQuotaList: { required: ["items"] },
    ResourceQuotaSpec: { fields: { scopes: ATOMIC_LIST } },
    ScopeSelector: { structType: "atomic", fields: { matchExpressions: ATOMIC_LIST } },
    ScopedResourceSelectorRequirement: {
      required: ["scopeName", "operator"],
      fields: {
        operator: { enum: ["DoesNotExist", "Exists", "In", "NotIn"] },
        values: ATOMIC_LIST,
      },
    },
    PersistentVolumeClaimList: { required: ["items"] },
    PersistentVolumeClaimSpec: {
      fields: {
        accessModes: ATOMIC_LIST,
        volumeMode: { enum: ["Block", "Filesystem"] },
      },
    },
    PersistentVolumeClaimStatus: {
      fields: {
        phase: { enum: ["Bound", "Lost", "Pending"] },
        accessModes: ATOMIC_LIST,
        conditions: mergeList("type"),
      },
    },
    PersistentVolumeClaimCondition: { required: ["type", "status"] },
    PersistentVolumeList: { required: ["items"] },
    PersistentVolumeSpec: {
      fields: {
        accessModes: ATOMIC_LIST,
        claimRef: {},
        mountOptions: ATOMIC_LIST,
        persistentVolumeReclaimPolicy: { enum: ["Delete", "Recycle", "Retain"] },
        volumeMode: { enum: ["Block", "Filesystem"] },
      },
    },
    PersistentVolumeStatus: {
      fields: { phase: { enum: ["Available", "Bound", "Failed", "Pending", "Released"] } },
    },
    ReplicationControllerList: { required: ["items"] },
    ReplicationControllerSpec: { fields: { selector: { mapType: "atomic" } } },
    ReplicationControllerStatus: {
      required: ["replicas"],
      fields: { conditions: mergeList("type") },
    },
    ReplicationControllerCondition: { required: ["type", "status"] },
    EndpointSubset: {
      fields: { addresses: ATOMIC_LIST, notReadyAddresses: ATOMIC_LIST, ports: ATOMIC_LIST },
    },
    EndpointAddress: { required: ["ip"], structType: "atomic" },
    EndpointPort: {
      required: ["port"],
      structType: "atomic",
      fields: { protocol: { enum: PROTOCOLS } },
    },
  },
};
