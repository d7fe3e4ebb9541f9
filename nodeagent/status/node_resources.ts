/**
 * `status.capacity` and `status.allocatable`: what the host has, and what is left for pods
 * after the system and agent reservations and the hard eviction thresholds (the kubelet's
 * node allocatable formula).
 *
 * @module
 */
import type { HostReadings } from "./host_readings.ts";
import { formatBytes, formatCpu, parseQuantity } from "../config/quantity.ts";
import { type EvictionThreshold, thresholdAmount } from "../config/eviction_threshold.ts";

/** Resource name to quantity string. */
export type ResourceList = Record<string, string>;

/** Inputs from the configuration. */
export interface ResourceSettings {
  /** `maxPods`. */
  maxPods: number;
  /** `systemReserved`. */
  systemReserved: Record<string, string>;
  /** `kubeReserved`. */
  kubeReserved: Record<string, string>;
  /** Parsed `evictionHard`. */
  evictionHard: EvictionThreshold[];
}

/** Computes capacity and allocatable. */
export function nodeResources(
  r: HostReadings,
  s: ResourceSettings,
): { capacity: ResourceList; allocatable: ResourceList } {
  const reserved = (name: string) =>
    (s.systemReserved[name] ? parseQuantity(s.systemReserved[name]) : 0) +
    (s.kubeReserved[name] ? parseQuantity(s.kubeReserved[name]) : 0);
  const hard = (signal: string, capacity: number) => {
    const t = s.evictionHard.find((x) => x.signal === signal);
    return t ? thresholdAmount(t, capacity) : 0;
  };
  const cap = {
    cpu: r.cpuCount,
    memory: r.memoryTotalBytes,
    storage: r.rootFs.capacityBytes,
  };
  return {
    capacity: {
      cpu: formatCpu(cap.cpu),
      "ephemeral-storage": formatBytes(cap.storage),
      memory: formatBytes(cap.memory),
      pods: String(s.maxPods),
    },
    allocatable: {
      cpu: formatCpu(Math.max(0, cap.cpu - reserved("cpu"))),
      "ephemeral-storage": String(
        Math.max(
          0,
          Math.floor(
            cap.storage - reserved("ephemeral-storage") - hard("nodefs.available", cap.storage),
          ),
        ),
      ),
      memory: formatBytes(
        Math.max(0, cap.memory - reserved("memory") - hard("memory.available", cap.memory)),
      ),
      pods: String(s.maxPods),
    },
  };
}
