/**
 * The node agent executable: `deno run -A cmd/nodeagent.ts --kubeconfig=... [--config=...]
 * [--config-dir=...] [--hostname-override=...] [--root-dir=...] [--feature-gates=...]
 * [--node-labels=...] [--port=10250]`. Invalid flags or configuration are all reported, then it
 * exits with status 1. SIGINT and SIGTERM stop it (containers included).
 *
 * @module
 */
import { AGENT_FLAG_HELP, parseAgentOptions } from "../nodeagent/agent_options.ts";
import { startNodeAgent } from "../nodeagent/node_agent.ts";
import { versionText } from "../shared/build_info.ts";
import { raiseDescriptorLimit } from "../shared/http/descriptor_limit.ts";
import { formatFlagHelp } from "../shared/flags/flag_help.ts";

if (Deno.args.includes("--version")) {
  console.log(versionText("nodeagent"));
  Deno.exit(0);
}
if (Deno.args.includes("--help") || Deno.args.includes("-h")) {
  console.log(formatFlagHelp("Usage: nodeagent [flags]", AGENT_FLAG_HELP));
  Deno.exit(0);
}
const parsed = await parseAgentOptions(Deno.args);
if (!parsed.ok) {
  console.error("invalid node agent configuration:");
  for (const e of parsed.errors) console.error(`  ${e}`);
  Deno.exit(1);
}
// Every connection takes a descriptor: the soft limit goes up to the hard one, as in Go.
raiseDescriptorLimit();
let agent;
try {
  agent = await startNodeAgent(parsed.options);
} catch (err) {
  console.error(`node agent failed to start: ${(err as Error).message}`);
  Deno.exit(1);
}
const running = agent;
let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  await running.close();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", shutdown);
Deno.addSignalListener("SIGTERM", shutdown);
