/**
 * Stopping the API server: at once (tests, errors) or gracefully, as on SIGTERM: readyz fails,
 * requests are served for `--shutdown-delay-duration`, the listener closes, requests in flight
 * finish, controllers and watches stop (each watch's stream ends cleanly), connections end
 * after their last writes, and storage closes last.
 *
 * @module
 */
import type { HttpsServer } from "../shared/http/https_server.ts";
import type { Logger } from "../shared/log/mod.ts";
import type { HealthChecks } from "./health/mod.ts";
import type { RequestsInFlight } from "./http/requests_in_flight.ts";
import type { ServerOptions } from "./options.ts";
import type { Storage } from "./storage/interface.ts";

/** What stopping the server stops, in order. */
export interface StopParts {
  opts: ServerOptions;
  logger: Logger;
  health: HealthChecks;
  server: HttpsServer;
  inFlight: RequestsInFlight;
  controllers: { stop(): Promise<void> };
  parts: { stopFeeds(): Promise<void> };
  storage: Storage;
}

/**
 * Stops the server; `graceful` as on SIGTERM (see {@link RunningServer.shutdown}). `release`
 * closes what serving used (YAML decoder, authenticators, audit backends) before storage.
 */
export async function stopServer(
  graceful: boolean,
  p: StopParts,
  release: () => Promise<void>,
): Promise<void> {
  p.health.markShuttingDown();
  if (graceful) await delayThenStopListening(p.opts, p.server, p.inFlight, p.logger);
  await p.controllers.stop();
  await p.parts.stopFeeds(); // every watch ends here, its stream closed cleanly
  const graceMs = Math.max(1000, p.opts.shutdownWatchTerminationGracePeriodMs);
  await p.server.close(graceful ? { graceMs } : undefined);
  await release();
  await p.storage.close();
  if (graceful) p.logger.info("graceful shutdown: done");
}

/**
 * The first part of a graceful shutdown (readyz already fails): requests are served for
 * `--shutdown-delay-duration`, then the listener closes and the requests in flight finish.
 */
async function delayThenStopListening(
  opts: ServerOptions,
  server: HttpsServer,
  inFlight: RequestsInFlight,
  logger: Logger,
): Promise<void> {
  logger.info("graceful shutdown: readyz fails", { delayMs: opts.shutdownDelayMs });
  await new Promise((resolve) => setTimeout(resolve, opts.shutdownDelayMs));
  server.stopListening();
  logger.info("graceful shutdown: listener closed, waiting for requests in flight");
  if (!await inFlight.idle(REQUEST_TIMEOUT_MS)) logger.warn("requests still in flight");
}

/** How long a request in flight may take to finish at shutdown (kube's request timeout). */
const REQUEST_TIMEOUT_MS = 60_000;
