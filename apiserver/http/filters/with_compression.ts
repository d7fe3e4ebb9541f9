/**
 * Response compression (kube-apiserver's APIResponseCompression): gzip for get and list
 * responses of resources when the client accepts it and the body is large enough.
 *
 * @module
 */
import { compressResponse } from "../respond.ts";
import type { Filter } from "./filter.ts";

const STREAMING = new Set(["log", "exec", "attach", "portforward", "proxy"]);

/** Compresses get and list responses while `enabled()` (the feature gate) says so. */
export function withCompression(enabled: () => boolean): Filter {
  return (next) => async (ctx) => {
    const res = await next(ctx);
    const { info } = ctx;
    if (!info.isResourceRequest || (info.verb !== "get" && info.verb !== "list")) return res;
    // Streams (logs, upgrades) go out as they come.
    if (STREAMING.has(info.subresource)) return res;
    return enabled() ? await compressResponse(ctx.req, res) : res;
  };
}
