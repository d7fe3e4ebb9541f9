/**
 * The HTTPS listener moved to `shared/http/https_server.ts` so the node agent can use it too;
 * this module re-exports it for the API server.
 *
 * @module
 */
export * from "../../shared/http/https_server.ts";
