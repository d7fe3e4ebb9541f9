/**
 * Makes Service cluster IPs local addresses of the node so the user-space proxy can listen on
 * them, as kube-proxy's IPVS mode binds them to its `kube-ipvs0` dummy interface: the agent
 * creates a dummy interface ({@link SERVICE_DEVICE}) with iproute2 and assigns each cluster IP
 * there as a /32 (or /128); where the kernel has no dummy interfaces (some containers) the
 * addresses go on `lo`. Needs root (CAP_NET_ADMIN) and `ip`. {@link close} removes what it
 * added (the interface it created, with its addresses).
 *
 * @module
 */
import type { Logger } from "../../shared/log/mod.ts";

/** The dummy interface that holds cluster IPs. */
export const SERVICE_DEVICE = "nodeagent-svc0";

/** Runs `ip` with arguments; returns success and standard error. */
export type IpCommand = (args: string[]) => Promise<{ ok: boolean; stderr: string }>;

/** Runs the real `ip`. */
export const runIp: IpCommand = async (args) => {
  try {
    const out = await new Deno.Command("ip", { args, stdout: "null", stderr: "piped" }).output();
    return { ok: out.success, stderr: new TextDecoder().decode(out.stderr).trim() };
  } catch (err) {
    return { ok: false, stderr: (err as Error).message };
  }
};

/** The cluster IPs assigned to the node by this agent. */
export class ClusterIpAddresses {
  #device?: string;
  #created = false;
  readonly #added = new Set<string>();
  readonly #ip: IpCommand;
  readonly #logger?: Logger;

  constructor(opts: { ip?: IpCommand; logger?: Logger } = {}) {
    this.#ip = opts.ip ?? runIp;
    this.#logger = opts.logger;
  }

  /** The interface holding the addresses (after the first {@link sync}). */
  get device(): string | undefined {
    return this.#device;
  }

  /** Assigns `ips` and removes the others it assigned; returns the IPs now assigned. */
  async sync(ips: Set<string>): Promise<Set<string>> {
    const dev = await this.#setUp();
    for (const ip of [...this.#added]) {
      if (ips.has(ip)) continue;
      await this.#ip(["addr", "del", prefix(ip), "dev", dev]);
      this.#added.delete(ip);
    }
    for (const ip of ips) {
      if (this.#added.has(ip)) continue;
      const r = await this.#ip(["addr", "add", prefix(ip), "dev", dev]);
      if (r.ok || /exists/i.test(r.stderr)) this.#added.add(ip);
      else this.#logger?.warn("service proxy: cannot assign a cluster IP", { ip, err: r.stderr });
    }
    return new Set(this.#added);
  }

  /** Removes every address it assigned (and the interface it created). */
  async close(): Promise<void> {
    if (!this.#device) return;
    if (this.#created) await this.#ip(["link", "del", this.#device]);
    else {
      for (const ip of this.#added) await this.#ip(["addr", "del", prefix(ip), "dev", "lo"]);
    }
    this.#added.clear();
    this.#device = undefined;
  }

  async #setUp(): Promise<string> {
    if (this.#device) return this.#device;
    const r = await this.#ip(["link", "add", SERVICE_DEVICE, "type", "dummy"]);
    if (r.ok || /exists/i.test(r.stderr)) {
      this.#created = true;
      this.#device = SERVICE_DEVICE;
      await this.#ip(["link", "set", SERVICE_DEVICE, "up"]);
    } else {
      this.#logger?.info("service proxy: no dummy interface; cluster IPs go on lo", {
        err: r.stderr,
      });
      this.#device = "lo";
    }
    return this.#device;
  }
}

/** `ip/32` or `ip/128`. */
function prefix(ip: string): string {
  return ip.includes(":") ? `${ip}/128` : `${ip}/32`;
}
