/** The schema declaration of metrics.k8s.io/v1beta1 (NodeMetrics, PodMetrics). */
import type { GroupSchema } from "../../schema/group_schema.ts";

/** metrics.k8s.io/v1beta1, with metrics-server's OpenAPI names. */
export const metricsV1beta1Schema: GroupSchema = {
  package: "metrics.v1beta1",
  group: "metrics.k8s.io",
  version: "v1beta1",
  openApiPrefix: "io.k8s.metrics.pkg.apis.metrics.v1beta1",
  kinds: ["NodeMetrics", "NodeMetricsList", "PodMetrics", "PodMetricsList"],
  types: {
    NodeMetrics: {
      description: "NodeMetrics sets resource usage metrics of a node.",
      required: ["timestamp", "window", "usage"],
      fields: {
        timestamp: {
          description:
            "The following fields define time interval from which metrics were collected from the interval [Timestamp-Window, Timestamp].",
        },
        usage: { description: "The memory usage is the memory working set." },
      },
    },
    NodeMetricsList: {
      description: "NodeMetricsList is a list of NodeMetrics.",
      required: ["items"],
      fields: { items: { description: "List of node metrics." } },
    },
    PodMetrics: {
      description: "PodMetrics sets resource usage metrics of a pod.",
      required: ["timestamp", "window", "containers"],
      fields: {
        timestamp: {
          description:
            "The following fields define time interval from which metrics were collected from the interval [Timestamp-Window, Timestamp].",
        },
        containers: {
          description: "Metrics for all containers are collected within the same time window.",
        },
      },
    },
    PodMetricsList: {
      description: "PodMetricsList is a list of PodMetrics.",
      required: ["items"],
      fields: { items: { description: "List of pod metrics." } },
    },
    ContainerMetrics: {
      description: "ContainerMetrics sets resource usage metrics of a container.",
      required: ["name", "usage"],
      fields: {
        name: { description: "Container name corresponding to the one from pod.spec.containers." },
        usage: { description: "The memory usage is the memory working set." },
      },
    },
  },
};
