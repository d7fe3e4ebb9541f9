/**
 * The checks of kube's LimitRanger against one LimitRange item, with kube's messages: minimum,
 * maximum (of the limit, or of the request for claims) and the maximum limit-to-request ratio.
 *
 * @module
 */
import { type Quantity, tryParseQuantity } from "../../shared/api/quantity.ts";

/** A resource list, parsed (resource name → quantity). */
export type Resources = Map<string, Quantity>;

/** Parses a ResourceList object; invalid quantities are skipped (validation reports them). */
export function resourcesOf(list: unknown): Resources {
  const out: Resources = new Map();
  if (typeof list !== "object" || list === null) return out;
  for (const [k, v] of Object.entries(list)) {
    const q = typeof v === "string" || typeof v === "number"
      ? tryParseQuantity(String(v))
      : undefined;
    if (q) out.set(k, q);
  }
  return out;
}

/** `min` of `resource` per `type`: a request must exist and, like any limit, not be below it. */
export function minConstraint(
  type: string,
  resource: string,
  enforced: Quantity,
  requests: Resources,
  limits: Resources,
): string | undefined {
  const req = requests.get(resource), lim = limits.get(resource);
  const min = `minimum ${resource} usage per ${type} is ${enforced}`;
  if (!req) return `${min}.  No request is specified`;
  if (req.compareTo(enforced) < 0) return `${min}, but request is ${req}`;
  if (lim && lim.compareTo(enforced) < 0) return `${min}, but limit is ${lim}`;
  return undefined;
}

/** `max` of `resource` per `type`: a limit must exist and neither it nor a request exceed it. */
export function maxConstraint(
  type: string,
  resource: string,
  enforced: Quantity,
  requests: Resources,
  limits: Resources,
): string | undefined {
  const req = requests.get(resource), lim = limits.get(resource);
  const max = `maximum ${resource} usage per ${type} is ${enforced}`;
  if (!lim) return `${max}.  No limit is specified`;
  if (lim.compareTo(enforced) > 0) return `${max}, but limit is ${lim}`;
  if (req && req.compareTo(enforced) > 0) return `${max}, but request is ${req}`;
  return undefined;
}

/** `max` of a claim's request (claims have no limits). */
export function maxRequestConstraint(
  type: string,
  resource: string,
  enforced: Quantity,
  requests: Resources,
): string | undefined {
  const req = requests.get(resource);
  const max = `maximum ${resource} usage per ${type} is ${enforced}`;
  if (!req) return `${max}.  No request is specified`;
  if (req.compareTo(enforced) > 0) return `${max}, but request is ${req}`;
  return undefined;
}

/** `maxLimitRequestRatio` of `resource` per `type`. */
export function limitRequestRatioConstraint(
  type: string,
  resource: string,
  enforced: Quantity,
  requests: Resources,
  limits: Resources,
): string | undefined {
  const req = requests.get(resource), lim = limits.get(resource);
  const head = `${resource} max limit to request ratio per ${type} is ${enforced}`;
  if (!req || req.sign() === 0) return `${head}, but no request is specified or request is 0`;
  if (!lim || lim.sign() === 0) return `${head}, but no limit is specified or limit is 0`;
  const ratio = lim.asApproximateFloat() / req.asApproximateFloat();
  if (ratio * 1000 > Math.round(enforced.asApproximateFloat() * 1000)) {
    return `${head}, but provided ratio is ${ratio.toFixed(6)}`;
  }
  return undefined;
}
