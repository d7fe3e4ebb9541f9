/**
 * The node's five conditions, computed from host readings the way the kubelet's status setters
 * and eviction manager do:
 * - MemoryPressure, DiskPressure, PIDPressure are True while a hard eviction threshold is met,
 *   and stay True until the threshold has not been met for `evictionPressureTransitionPeriod`;
 * - Ready is True when the agent and its runtime report no errors;
 * - NetworkUnavailable is False (the process runtime uses the host network) unless network
 *   errors are reported.
 *
 * Every condition's `lastHeartbeatTime` is the current time; `lastTransitionTime` changes only
 * when its status changes (or the condition is new).
 *
 * @module
 */
import { type EvictionThreshold, thresholdAmount } from "../config/eviction_threshold.ts";
import type { HostReadings } from "./host_readings.ts";
import { formatTime } from "../../shared/api/meta/v1/time.ts";

/** A node condition on the wire. */
export interface NodeCondition {
  type: "Ready" | "MemoryPressure" | "DiskPressure" | "PIDPressure" | "NetworkUnavailable";
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  /** RFC 3339, seconds precision. */
  lastHeartbeatTime: string;
  /** RFC 3339, seconds precision. */
  lastTransitionTime: string;
}

/** When each pressure was last observed (milliseconds), carried between computations. */
export type PressureObservations = Partial<
  Record<"MemoryPressure" | "DiskPressure" | "PIDPressure", number>
>;

/** Inputs of {@link computeNodeConditions}. */
export interface ConditionInputs {
  /** The conditions last computed (or read from the Node), to keep transition times. */
  previous: NodeCondition[];
  /** Pressure observations from the last computation. */
  observations: PressureObservations;
  /** The host snapshot; undefined when it could not be read (pressures then stay as they were). */
  readings?: HostReadings;
  /** Hard eviction thresholds. */
  thresholds: EvictionThreshold[];
  /** How long a pressure stays after its threshold is no longer met (ms). */
  pressureTransitionPeriodMs: number;
  /** Problems that make the node not ready (runtime down, agent unhealthy). */
  readyErrors: string[];
  /** Problems with the node's network. */
  networkErrors: string[];
  /** The current time (ms). */
  now: number;
}

/** Formats milliseconds as RFC 3339 with seconds precision, as metav1.Time serializes. */
export function rfc3339(ms: number): string {
  return formatTime(ms);
}

const PRESSURE_TEXT = {
  MemoryPressure: {
    falseReason: "KubeletHasSufficientMemory",
    falseMessage: "kubelet has sufficient memory available",
    trueReason: "KubeletHasInsufficientMemory",
    trueMessage: "kubelet has insufficient memory available",
  },
  DiskPressure: {
    falseReason: "KubeletHasNoDiskPressure",
    falseMessage: "kubelet has no disk pressure",
    trueReason: "KubeletHasDiskPressure",
    trueMessage: "kubelet has disk pressure",
  },
  PIDPressure: {
    falseReason: "KubeletHasSufficientPID",
    falseMessage: "kubelet has sufficient PID available",
    trueReason: "KubeletHasInsufficientPID",
    trueMessage: "kubelet has insufficient PID available",
  },
} as const;

/** Returns which eviction signals currently meet their threshold. */
export function thresholdsMet(r: HostReadings, thresholds: EvictionThreshold[]): Set<string> {
  const met = new Set<string>();
  for (const t of thresholds) {
    let available: number, capacity: number;
    switch (t.signal) {
      case "memory.available":
        [available, capacity] = [r.memoryAvailableBytes, r.memoryTotalBytes];
        break;
      case "nodefs.available":
      case "imagefs.available":
        [available, capacity] = [r.rootFs.availableBytes, r.rootFs.capacityBytes];
        break;
      case "nodefs.inodesFree":
      case "imagefs.inodesFree":
        if (r.rootFs.inodes === 0) continue;
        [available, capacity] = [r.rootFs.inodesFree, r.rootFs.inodes];
        break;
      case "pid.available":
        [available, capacity] = [r.pidMax - r.processCount, r.pidMax];
        break;
    }
    if (available < thresholdAmount(t, capacity)) met.add(t.signal);
  }
  return met;
}

const SIGNALS_OF = {
  MemoryPressure: ["memory.available"],
  DiskPressure: [
    "nodefs.available",
    "nodefs.inodesFree",
    "imagefs.available",
    "imagefs.inodesFree",
  ],
  PIDPressure: ["pid.available"],
} as const;

/** Computes the five conditions and the pressure observations to carry to the next call. */
export function computeNodeConditions(
  inp: ConditionInputs,
): { conditions: NodeCondition[]; observations: PressureObservations } {
  const now = rfc3339(inp.now);
  const prev = new Map(inp.previous.map((c) => [c.type, c]));
  const make = (
    type: NodeCondition["type"],
    status: NodeCondition["status"],
    reason: string,
    message: string,
  ): NodeCondition => {
    const before = prev.get(type);
    return {
      type,
      status,
      reason,
      message,
      lastHeartbeatTime: now,
      lastTransitionTime: before && before.status === status ? before.lastTransitionTime : now,
    };
  };
  const observations: PressureObservations = { ...inp.observations };
  const met = inp.readings ? thresholdsMet(inp.readings, inp.thresholds) : undefined;
  const pressures: NodeCondition[] = [];
  for (const type of ["MemoryPressure", "DiskPressure", "PIDPressure"] as const) {
    const text = PRESSURE_TEXT[type];
    if (met && SIGNALS_OF[type].some((s) => met.has(s))) observations[type] = inp.now;
    const last = observations[type];
    let pressure: boolean;
    if (met) {
      pressure = last !== undefined &&
        (last === inp.now || inp.now - last < inp.pressureTransitionPeriodMs);
    } else {
      pressure = prev.get(type)?.status === "True";
    }
    if (!pressure) delete observations[type];
    pressures.push(
      pressure
        ? make(type, "True", text.trueReason, text.trueMessage)
        : make(type, "False", text.falseReason, text.falseMessage),
    );
  }
  const readyErrors = [...inp.readyErrors];
  if (!inp.readings) readyErrors.push("cannot read host status");
  const ready = readyErrors.length === 0
    ? make("Ready", "True", "KubeletReady", "kubelet is posting ready status")
    : make("Ready", "False", "KubeletNotReady", `[${readyErrors.join(", ")}]`);
  const network = inp.networkErrors.length === 0
    ? make("NetworkUnavailable", "False", "HostNetwork", "node agent uses the host network")
    : make("NetworkUnavailable", "True", "NetworkUnavailable", inp.networkErrors.join(", "));
  return { conditions: [...pressures, ready, network], observations };
}
