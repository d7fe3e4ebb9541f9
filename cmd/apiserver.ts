/**
 * The API server executable: flags → options → validate (every problem at once) → run.
 *
 * @module
 */
import { FLAG_HELP, parseServerOptions } from "../apiserver/options.ts";
import { startServer } from "../apiserver/server.ts";
import { runSnapshotCommand } from "../apiserver/snapshot_command.ts";
import { versionText } from "../shared/build_info.ts";
import { raiseDescriptorLimit } from "../shared/http/descriptor_limit.ts";
import { formatFlagHelp } from "../shared/flags/flag_help.ts";
import { runTokenCommand } from "../apiserver/token_command.ts";

if (import.meta.main && Deno.args[0] === "token") {
  Deno.exit(await runTokenCommand(Deno.args.slice(1)));
}
if (import.meta.main) {
  if (Deno.args.includes("--version")) {
    console.log(versionText("apiserver"));
    Deno.exit(0);
  }
  if (Deno.args[0] === "snapshot") Deno.exit(await runSnapshotCommand(Deno.args.slice(1)));
  if (Deno.args.includes("--help") || Deno.args.includes("-h")) {
    console.log(formatFlagHelp("Usage: apiserver [flags]", FLAG_HELP));
    Deno.exit(0);
  }
  const parsed = parseServerOptions(Deno.args);
  if (!parsed.ok) {
    for (const e of parsed.errors) console.error(`error: ${e}`);
    Deno.exit(2);
  }
  // Every connection takes a descriptor: the soft limit goes up to the hard one, as in Go.
  raiseDescriptorLimit();
  const server = await startServer(parsed.options).catch((err) => {
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    Deno.exit(1);
  });
  let stopping = false;
  // The first signal shuts down gracefully (--shutdown-delay-duration); a second one exits now.
  const stop = async () => {
    if (stopping) Deno.exit(1);
    stopping = true;
    await server.shutdown();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await server.ready;
  console.error(`apiserver ready at ${server.url}; admin kubeconfig: ${server.kubeconfigPath}`);
}
