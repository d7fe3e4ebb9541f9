/**
 * The API server's group commits as its `/metrics` tell them (`apiserver_storage_group_commit_*`):
 * totals at one reading, and what happened between two readings, for the create/list benchmark
 * ({@link ../create_list.ts}).
 *
 * @module
 */

/** The server's group commits over one phase, read from `apiserver_storage_group_commit_*`. */
export interface GroupCommitDelta {
  /** Transactions committed. */
  commits: number;
  /** Writes per transaction (mean). */
  writesPerCommit: number;
  /** Mean duration of one transaction, statements, commit and sync included, ms. */
  meanMs: number;
  /**
   * Share of the phase's wall time spent in transactions on the server's own thread (inline):
   * the time its event loop could not handle requests.
   */
  inlineShare: number;
}

/** Sums of the group-commit series of a Prometheus text exposition. */
export interface GroupCommitTotals {
  commits: number;
  writes: number;
  seconds: number;
  inlineSeconds: number;
}

/** Reads the group-commit totals (all `where` labels) out of a `/metrics` text. */
export function groupCommitTotals(text: string): GroupCommitTotals {
  const totals: GroupCommitTotals = { commits: 0, writes: 0, seconds: 0, inlineSeconds: 0 };
  const series =
    /^apiserver_storage_group_commit_(duration_seconds_sum|duration_seconds_count|writes_sum)\{where="([a-z]+)"\} (\S+)$/;
  for (const line of text.split("\n")) {
    const m = series.exec(line);
    if (!m) continue;
    const v = Number(m[3]);
    if (!Number.isFinite(v)) continue;
    if (m[1] === "duration_seconds_count") totals.commits += v;
    else if (m[1] === "writes_sum") totals.writes += v;
    else {
      totals.seconds += v;
      if (m[2] === "inline") totals.inlineSeconds += v;
    }
  }
  return totals;
}

/** The group commits between two readings over `wallSeconds`; undefined without commits. */
export function groupCommitDelta(
  before: GroupCommitTotals,
  after: GroupCommitTotals,
  wallSeconds: number,
): GroupCommitDelta | undefined {
  const commits = after.commits - before.commits;
  if (!(commits > 0) || !(wallSeconds > 0)) return undefined;
  return {
    commits,
    writesPerCommit: (after.writes - before.writes) / commits,
    meanMs: (after.seconds - before.seconds) * 1000 / commits,
    inlineShare: (after.inlineSeconds - before.inlineSeconds) / wallSeconds,
  };
}

/** The server's group-commit totals, or undefined when /metrics cannot be read. */
export async function readGroupCommits(
  call: (path: string) => Promise<Response>,
): Promise<GroupCommitTotals | undefined> {
  try {
    const res = await call("/metrics");
    const text = await res.text();
    return res.status === 200 ? groupCommitTotals(text) : undefined;
  } catch {
    return undefined;
  }
}
