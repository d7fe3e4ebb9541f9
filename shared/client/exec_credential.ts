/**
 * Client credential plugins (kubeconfig `user.exec`, client-go's exec authenticator): the
 * command (a relative path with a separator is resolved against the kubeconfig's directory)
 * runs with `args` and `env` added to ours, and `KUBERNETES_EXEC_INFO` holding an
 * `ExecCredential` (`spec.interactive`, and with `provideClusterInfo` `spec.cluster` with the
 * cluster's `client.authentication.k8s.io/exec` extension as `config`). Its output must be an
 * `ExecCredential` of the configured apiVersion (`client.authentication.k8s.io/v1` or
 * `v1beta1`) with a token or a client certificate and key; it is cached until its
 * `expirationTimestamp`, or until the server answers 401. `interactiveMode`: `Never` (no stdin),
 * `IfAvailable` (stdin when it is a terminal), `Always` (fails without a terminal); v1 requires
 * it, v1beta1 defaults to IfAvailable.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import { isObject } from "../json/is_object.ts";

/** The API versions of the exec protocol. */
export const EXEC_API_VERSIONS = [
  "client.authentication.k8s.io/v1",
  "client.authentication.k8s.io/v1beta1",
];

/** A kubeconfig `user.exec`. */
export interface ExecConfig {
  command: string;
  args?: string[];
  env?: { name: string; value: string }[];
  apiVersion: string;
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: "Never" | "IfAvailable" | "Always";
}

/** The cluster as the plugin sees it with `provideClusterInfo`. */
export interface ExecClusterInfo {
  server: string;
  "certificate-authority-data"?: string;
  "insecure-skip-tls-verify"?: boolean;
  /** The cluster's `client.authentication.k8s.io/exec` extension. */
  config?: unknown;
}

/** A credential the plugin returned. */
export type ExecCredential =
  | { token: string; expiresAt?: number }
  | { clientCertPem: string; clientKeyPem: string; expiresAt?: number };

/** Reads and checks a kubeconfig `exec` stanza; `baseDir` resolves a relative command path. */
export function parseExecConfig(raw: unknown, baseDir: string, user: string): ExecConfig {
  if (!isObject(raw)) throw new Error(`user ${JSON.stringify(user)}: exec must be a mapping`);
  const command = raw.command;
  if (typeof command !== "string" || command === "") {
    throw new Error(`user ${JSON.stringify(user)}: exec.command is required`);
  }
  const apiVersion = String(raw.apiVersion ?? "");
  if (!EXEC_API_VERSIONS.includes(apiVersion)) {
    throw new Error(
      `user ${JSON.stringify(user)}: exec plugin: invalid apiVersion ${JSON.stringify(apiVersion)}`,
    );
  }
  let mode = raw.interactiveMode as ExecConfig["interactiveMode"] | undefined;
  if (mode === undefined && apiVersion.endsWith("/v1")) {
    throw new Error(
      `user ${
        JSON.stringify(user)
      }: interactiveMode must be specified to use exec authentication plugin`,
    );
  }
  mode ??= "IfAvailable";
  if (!["Never", "IfAvailable", "Always"].includes(mode)) {
    throw new Error(`user ${JSON.stringify(user)}: exec plugin: invalid interactiveMode ${mode}`);
  }
  const resolved = command.includes("/") && !isAbsolute(command) ? join(baseDir, command) : command;
  return {
    command: resolved,
    args: Array.isArray(raw.args) ? raw.args.map(String) : undefined,
    env: Array.isArray(raw.env)
      ? raw.env.filter(isObject).map((e) => ({ name: String(e.name), value: String(e.value) }))
      : undefined,
    apiVersion,
    installHint: typeof raw.installHint === "string" ? raw.installHint : undefined,
    provideClusterInfo: raw.provideClusterInfo === true,
    interactiveMode: mode,
  };
}

/** How the provider runs (tests replace the terminal check). */
export interface ExecProviderOptions {
  cluster?: ExecClusterInfo;
  /** Whether stdin is a terminal (default: Deno.stdin.isTerminal()). */
  isTerminal?: () => boolean;
  now?: () => number;
}

/** Runs the plugin when no valid credential is cached. */
export class ExecCredentialProvider {
  readonly #exec: ExecConfig;
  readonly #opts: ExecProviderOptions;
  #cached?: ExecCredential;
  #running?: Promise<ExecCredential>;
  /** How many times the plugin ran. */
  runs = 0;

  constructor(exec: ExecConfig, opts: ExecProviderOptions = {}) {
    this.#exec = exec;
    this.#opts = opts;
  }

  /** The cached credential, or a new one from the plugin. */
  async get(): Promise<ExecCredential> {
    const now = (this.#opts.now ?? Date.now)();
    const c = this.#cached;
    if (c && (c.expiresAt === undefined || c.expiresAt > now)) return c;
    this.#running ??= this.#run().finally(() => this.#running = undefined);
    this.#cached = await this.#running;
    return this.#cached;
  }

  /** Drops the cached credential (the server refused it). */
  invalidate(): void {
    this.#cached = undefined;
  }

  /** The ExecCredential given to the plugin in KUBERNETES_EXEC_INFO. */
  execInfo(interactive: boolean): string {
    const spec: Record<string, unknown> = { interactive };
    if (this.#exec.provideClusterInfo && this.#opts.cluster) spec.cluster = this.#opts.cluster;
    return JSON.stringify({ apiVersion: this.#exec.apiVersion, kind: "ExecCredential", spec });
  }

  async #run(): Promise<ExecCredential> {
    const e = this.#exec;
    const terminal = (this.#opts.isTerminal ?? (() => Deno.stdin.isTerminal()))();
    if (e.interactiveMode === "Always" && !terminal) {
      throw new Error(
        "exec plugin cannot support interactive mode: standard input is not a terminal",
      );
    }
    const interactive = e.interactiveMode !== "Never" && terminal;
    const env: Record<string, string> = {};
    for (const { name, value } of e.env ?? []) env[name] = value;
    env.KUBERNETES_EXEC_INFO = this.execInfo(interactive);
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command(e.command, {
        args: e.args ?? [],
        env,
        stdin: interactive ? "inherit" : "null",
        stdout: "piped",
        stderr: interactive ? "inherit" : "piped",
      }).output();
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        throw new Error(
          `exec: executable ${e.command} not found${e.installHint ? `\n\n${e.installHint}` : ""}`,
        );
      }
      throw new Error(`exec: ${(err as Error).message}`);
    }
    this.runs++;
    if (!out.success) {
      throw new Error(`exec: executable ${e.command} failed with exit code ${out.code}`);
    }
    return this.#read(new TextDecoder().decode(out.stdout));
  }

  #read(text: string): ExecCredential {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new Error("exec: decoding stdout: the plugin's output is not JSON");
    }
    if (!isObject(doc) || doc.kind !== "ExecCredential") {
      throw new Error("exec: decoding stdout: the output is not an ExecCredential");
    }
    if (doc.apiVersion !== this.#exec.apiVersion) {
      throw new Error(
        `exec plugin is configured to use API version ${this.#exec.apiVersion}, plugin returned version ${doc.apiVersion}`,
      );
    }
    const status = doc.status;
    if (!isObject(status)) throw new Error("exec plugin didn't return a status field");
    const exp = typeof status.expirationTimestamp === "string"
      ? Date.parse(status.expirationTimestamp)
      : undefined;
    const expiresAt = exp !== undefined && !Number.isNaN(exp) ? exp : undefined;
    const { token, clientCertificateData: cert, clientKeyData: key } = status;
    if (typeof token === "string" && token !== "") {
      if (cert || key) {
        throw new Error("exec plugin returned both token and client certificate data");
      }
      return { token, expiresAt };
    }
    if (typeof cert === "string" && typeof key === "string" && cert && key) {
      return { clientCertPem: cert, clientKeyPem: key, expiresAt };
    }
    if (cert || key) throw new Error("exec plugin returned only certificate or key, not both");
    throw new Error("exec plugin didn't return a token or cert/key pair");
  }
}
