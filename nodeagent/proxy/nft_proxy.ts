/**
 * The nftables service proxy: every apply replaces the agent's table with the ruleset of the
 * proxy table in one `nft -f -` transaction; {@link NftProxy.close} deletes the table.
 *
 * @module
 */
import type { Logger } from "../../shared/log/mod.ts";
import { NFT_TABLE, nftRuleset } from "./nft_ruleset.ts";
import type { ServicePortRule } from "./proxy_table.ts";

/** Runs `nft` with arguments and standard input; returns success and standard error. */
export type NftCommand = (
  args: string[],
  stdin?: string,
) => Promise<{ ok: boolean; stderr: string }>;

/** Runs the real `nft`. */
export const runNft: NftCommand = async (args, stdin) => {
  try {
    const child = new Deno.Command("nft", {
      args,
      stdin: stdin === undefined ? "null" : "piped",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    if (stdin !== undefined) {
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode(stdin));
      await w.close();
    }
    const out = await child.output();
    return { ok: out.success, stderr: new TextDecoder().decode(out.stderr).trim() };
  } catch (err) {
    return { ok: false, stderr: (err as Error).message };
  }
};

/** Whether nftables can be programmed here: root, and `nft list tables` works. */
export async function nftUsable(nft: NftCommand = runNft): Promise<boolean> {
  if (Deno.uid() !== 0) return false;
  return (await nft(["list", "tables"])).ok;
}

/** Programs the table. */
export class NftProxy {
  #applied = false;
  constructor(
    readonly o: { nodePortHosts: string[]; nft?: NftCommand; logger?: Logger },
  ) {}

  /** Replaces the table; throws when nft refuses the ruleset. */
  async apply(rules: ServicePortRule[]): Promise<void> {
    const nft = this.o.nft ?? runNft;
    const r = await nft(["-f", "-"], nftRuleset(rules, this.o.nodePortHosts));
    if (!r.ok) throw new Error(`nft -f failed: ${r.stderr}`);
    this.#applied = true;
  }

  /** Deletes the table. */
  async close(): Promise<void> {
    if (!this.#applied) return;
    const r = await (this.o.nft ?? runNft)(["delete", "table", "inet", NFT_TABLE]);
    if (!r.ok) {
      this.o.logger?.warn("service proxy: cannot delete the nftables table", { err: r.stderr });
    }
  }
}
