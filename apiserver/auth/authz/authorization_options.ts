/**
 * The authorization flags: `--authorization-mode` (comma list in priority order, default
 * `Node,RBAC`) and `--authorization-policy-file` (ABAC), validated with Kubernetes' messages.
 *
 * @module
 */

/** The modes the server knows. */
export const AUTHORIZATION_MODES = [
  "AlwaysAllow",
  "AlwaysDeny",
  "ABAC",
  "Webhook",
  "RBAC",
  "Node",
] as const;

/** One authorization mode. */
export type AuthorizationMode = typeof AUTHORIZATION_MODES[number];

/** The parsed authorization options. */
export interface AuthorizationOptions {
  modes: AuthorizationMode[];
  policyFile?: string;
}

/** The default mode list. */
export const DEFAULT_AUTHORIZATION_MODES: AuthorizationMode[] = ["Node", "RBAC"];

/** Help text of the flags. */
export const AUTHZ_FLAG_HELP: Record<string, string> = {
  "authorization-mode":
    "ordered comma list of AlwaysAllow, AlwaysDeny, ABAC, RBAC, Node (default Node,RBAC)",
  "authorization-policy-file": "ABAC policy file, one JSON policy per line (mode ABAC)",
};

/** The parseArgs option declarations of the flags. */
export const AUTHZ_PARSE_OPTIONS = {
  "authorization-mode": { type: "string" },
  "authorization-policy-file": { type: "string" },
} as const;

/** Builds the options from flag values, pushing every problem onto `errors`. */
export function authorizationOptionsFromFlags(
  values: Record<string, unknown>,
  errors: string[],
): AuthorizationOptions {
  const raw = values["authorization-mode"];
  const policyFile = typeof values["authorization-policy-file"] === "string"
    ? values["authorization-policy-file"] as string
    : undefined;
  const modes: AuthorizationMode[] = [];
  const list = typeof raw === "string"
    ? raw.split(",").map((s) => s.trim()).filter((s) => s !== "")
    : [...DEFAULT_AUTHORIZATION_MODES];
  if (list.length === 0) errors.push("at least one authorization-mode must be passed");
  for (const m of list) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) {
      errors.push(`authorization-mode ${JSON.stringify(m)} is not a valid mode`);
      continue;
    }
    if (modes.includes(m as AuthorizationMode)) {
      errors.push(`authorization-mode ${JSON.stringify(m)} has mode specified more than once`);
      continue;
    }
    if (m === "Webhook") {
      errors.push(
        "authorization-mode Webhook is not supported yet (the authorization webhook comes later)",
      );
      continue;
    }
    modes.push(m as AuthorizationMode);
  }
  if (modes.includes("ABAC") && !policyFile) {
    errors.push("authorization-mode ABAC's authorization policy file not passed");
  }
  if (!modes.includes("ABAC") && policyFile) {
    errors.push("cannot specify --authorization-policy-file without mode ABAC");
  }
  return { modes, policyFile };
}
