/**
 * The schema declaration of flowcontrol.apiserver.k8s.io/v1 (FlowSchema,
 * PriorityLevelConfiguration): required fields, list types, merge markers and descriptions as
 * Kubernetes 1.32's OpenAPI has them. Field names and types come from the flowcontrol/v1
 * descriptors.
 *
 * @module
 */
import { ATOMIC_LIST, type GroupSchema, mergeList } from "../../schema/group_schema.ts";

const SET = { listType: "set" } as const;

/** flowcontrol.apiserver.k8s.io/v1. */
export const flowcontrolV1Schema: GroupSchema = {
  package: "flowcontrol.v1",
  group: "flowcontrol.apiserver.k8s.io",
  version: "v1",
  openApiPrefix: "io.k8s.api.flowcontrol.v1",
  kinds: [
    "FlowSchema",
    "FlowSchemaList",
    "PriorityLevelConfiguration",
    "PriorityLevelConfigurationList",
  ],
  types: {
    FlowSchema: {
      description:
        "Classifies requests into flows and assigns them to a priority level (API Priority " +
        "and Fairness).",
    },
    FlowSchemaList: { required: ["items"] },
    FlowSchemaSpec: {
      fields: {
        priorityLevelConfiguration: { description: "The priority level of matching requests." },
        matchingPrecedence: {
          description: "Lower values match first; 1 to 10000, defaults to 1000.",
        },
        distinguisherMethod: { description: "How flows are told apart: ByUser or ByNamespace." },
        rules: { ...ATOMIC_LIST, description: "The schema matches a request any rule matches." },
      },
    },
    FlowSchemaStatus: { fields: { conditions: mergeList("type") } },
    PolicyRulesWithSubjects: {
      fields: {
        subjects: ATOMIC_LIST,
        resourceRules: ATOMIC_LIST,
        nonResourceRules: ATOMIC_LIST,
      },
    },
    ResourcePolicyRule: {
      fields: { verbs: SET, apiGroups: SET, resources: SET, namespaces: SET },
    },
    NonResourcePolicyRule: { fields: { verbs: SET, nonResourceURLs: SET } },
    PriorityLevelConfiguration: {
      description: "The configuration of a priority level (API Priority and Fairness).",
    },
    PriorityLevelConfigurationList: { required: ["items"] },
    PriorityLevelConfigurationSpec: {
      fields: {
        type: { description: '"Exempt" or "Limited".' },
        limited: { description: "How requests of a Limited priority level are limited." },
        exempt: { description: "The configurable aspects of an Exempt priority level." },
      },
    },
    LimitedPriorityLevelConfiguration: {
      fields: {
        nominalConcurrencyShares: {
          description: "Share of the server's concurrency; 30 when unset.",
        },
        lendablePercent: { description: "Percent of the nominal limit others may borrow (0-100)." },
      },
    },
    QueuingConfiguration: {
      fields: {
        queues: { description: "Number of queues; defaults to 64." },
        handSize: { description: "Shuffle-sharding hand size; defaults to 8." },
        queueLengthLimit: { description: "Requests waiting per queue; defaults to 50." },
      },
    },
    PriorityLevelConfigurationStatus: { fields: { conditions: mergeList("type") } },
  },
};
