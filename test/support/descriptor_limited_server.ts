/**
 * A listener for tests that run it as a child process under a low `ulimit -n`: serves "ok" on
 * every path with the certificate and key in the directory given as its argument
 * (`serving.crt`, `serving.key`), prints `port <n>` on stdout once it listens, and writes its
 * warnings and errors (JSON lines) on stderr.
 */
import { serveHttps } from "../../shared/http/https_server.ts";

const dir = Deno.args[0];
const server = await serveHttps(() => new Response("ok"), {
  hostname: "127.0.0.1",
  port: 0,
  certPem: await Deno.readTextFile(`${dir}/serving.crt`),
  keyPem: await Deno.readTextFile(`${dir}/serving.key`),
  requestClientCert: false,
});
console.log(`port ${server.port}`);
