/**
 * When the node agent writes its status: when anything but heartbeat times changed, or when
 * `nodeStatusReportFrequency` has passed since the last write (the kubelet's
 * `nodeStatusHasChanged` plus report-frequency rule).
 *
 * @module
 */
import type { NodeCondition } from "./node_conditions.ts";

/** The parts of a node status the agent writes. */
export interface ReportedStatus {
  /** Conditions. */
  conditions: NodeCondition[];
  /** Everything else (capacity, allocatable, nodeInfo, addresses), compared as JSON. */
  rest: unknown;
}

function withoutHeartbeat(cs: NodeCondition[]): string {
  return JSON.stringify(
    [...cs].sort((a, b) => a.type.localeCompare(b.type)).map(({ lastHeartbeatTime: _, ...c }) => c),
  );
}

/** Whether `next` must be written given what was last written and when. */
export function statusNeedsWrite(
  last: { status: ReportedStatus; at: number } | undefined,
  next: ReportedStatus,
  now: number,
  reportFrequencyMs: number,
): boolean {
  if (!last) return true;
  if (now - last.at >= reportFrequencyMs) return true;
  if (withoutHeartbeat(last.status.conditions) !== withoutHeartbeat(next.conditions)) return true;
  return JSON.stringify(last.status.rest) !== JSON.stringify(next.rest);
}
