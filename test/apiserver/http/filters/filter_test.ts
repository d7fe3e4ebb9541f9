import assert from "node:assert/strict";
import {
  chainFilters,
  type Filter,
  type RequestContext,
} from "../../../../apiserver/http/filters/filter.ts";
import { withRequestInfo } from "../../../../apiserver/http/filters/with_request_info.ts";
import { withStatusErrors } from "../../../../apiserver/http/filters/with_status_errors.ts";
import { StatusError } from "../../../../shared/errors/status_error.ts";
import { Logger } from "../../../../shared/log/mod.ts";
import { testConn } from "../../../support/test_conn.ts";

const silent = new Logger({ verbosity: 0, sink: () => {} });

function named(name: string, seen: string[]): Filter {
  return (next) => async (ctx) => {
    seen.push(`${name} in`);
    const res = await next(ctx);
    seen.push(`${name} out`);
    return res;
  };
}

Deno.test("chainFilters() puts the first filter outermost", async () => {
  const seen: string[] = [];
  const handle = withRequestInfo(chainFilters([named("a", seen), named("b", seen)], (ctx) => {
    seen.push(`handler ${ctx.info.verb} ${ctx.info.resource}`);
    return Promise.resolve(new Response("done"));
  }));
  const res = await handle(new Request("https://h/api/v1/pods"), testConn());
  assert.equal(await res.text(), "done");
  assert.deepEqual(seen, ["a in", "b in", "handler list pods", "b out", "a out"]);
});

Deno.test("withStatusErrors() answers a thrown StatusError with its Status", async () => {
  const handle = withRequestInfo(chainFilters([withStatusErrors(silent)], (_: RequestContext) => {
    throw StatusError.badRequest("no good");
  }));
  const res = await handle(new Request("https://h/api/v1/pods"), testConn());
  assert.equal(res.status, 400);
  const body = await res.json();
  assert.equal(body.kind, "Status");
  assert.equal(body.message, "no good");
});
