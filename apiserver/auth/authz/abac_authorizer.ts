/**
 * The ABAC authorizer (mode ABAC): a policy file with one JSON policy object per line, in
 * Kubernetes' format (`abac.authorization.kubernetes.io/v1beta1` Policy with `spec.user`,
 * `group`, `readonly`, `namespace`, `resource`, `apiGroup`, `nonResourcePath`; an unversioned
 * line is the legacy v0 form). A request is allowed when any policy matches; otherwise no
 * opinion. Blank lines and lines starting with `#` are skipped.
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import type {
  Authorizer,
  AuthzAttributes,
  Decision,
  NonResourceRule,
  ResourceRule,
  RulesResult,
} from "./authorizer.ts";

/** The spec of one ABAC policy, normalised to v1beta1. */
export interface AbacPolicySpec {
  user: string;
  group: string;
  readonly: boolean;
  namespace: string;
  resource: string;
  apiGroup: string;
  nonResourcePath: string;
}

const READ_VERBS = new Set(["get", "list", "watch"]);
const V1BETA1 = "abac.authorization.kubernetes.io/v1beta1";

function str(v: unknown, field: string, line: number): string {
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw new Error(`line ${line}: ${field} must be a string`);
  return v;
}

/** Parses a policy file's text; throws with the line number of the first bad line. */
export function parseAbacPolicies(text: string): AbacPolicySpec[] {
  const out: AbacPolicySpec[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const line = lines[i].trim();
    if (line === "" || line.startsWith("#")) continue;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (err) {
      throw new Error(`line ${lineNo}: invalid JSON: ${(err as Error).message}`);
    }
    if (!obj || typeof obj !== "object" || Array.isArray(obj)) {
      throw new Error(`line ${lineNo}: a policy must be a JSON object`);
    }
    const o = obj as Record<string, unknown>;
    if (o.apiVersion !== undefined || o.kind !== undefined) {
      if (o.apiVersion !== V1BETA1 || o.kind !== "Policy") {
        throw new Error(
          `line ${lineNo}: unsupported policy version ${JSON.stringify(o.apiVersion)} kind ${
            JSON.stringify(o.kind)
          } (want ${V1BETA1} Policy)`,
        );
      }
      const s = (o.spec ?? {}) as Record<string, unknown>;
      if (typeof s !== "object" || Array.isArray(s)) {
        throw new Error(`line ${lineNo}: spec must be an object`);
      }
      out.push({
        user: str(s.user, "spec.user", lineNo),
        group: str(s.group, "spec.group", lineNo),
        readonly: s.readonly === true,
        namespace: str(s.namespace, "spec.namespace", lineNo),
        resource: str(s.resource, "spec.resource", lineNo),
        apiGroup: str(s.apiGroup, "spec.apiGroup", lineNo),
        nonResourcePath: str(s.nonResourcePath, "spec.nonResourcePath", lineNo),
      });
      continue;
    }
    // v0: empty fields match everything; no user and no group matches every user.
    const user = str(o.user, "user", lineNo);
    const group = str(o.group, "group", lineNo);
    out.push({
      user: user === "" && group === "" ? "*" : user,
      group,
      readonly: o.readonly === true,
      namespace: str(o.namespace, "namespace", lineNo) || "*",
      resource: str(o.resource, "resource", lineNo) || "*",
      apiGroup: "*",
      nonResourcePath: "*",
    });
  }
  return out;
}

function subjectMatches(p: AbacPolicySpec, user: UserInfo): boolean {
  let matched = false;
  if (p.user) {
    if (p.user === "*") matched = true;
    else {
      matched = p.user === user.username;
      if (!matched) return false;
    }
  }
  if (p.group) {
    if (p.group === "*") matched = true;
    else {
      matched = (user.groups ?? []).includes(p.group);
      if (!matched) return false;
    }
  }
  return matched;
}

function matches(p: AbacPolicySpec, a: AuthzAttributes): boolean {
  if (!subjectMatches(p, a.user)) return false;
  if (p.readonly && !READ_VERBS.has(a.verb)) return false;
  if (a.isResourceRequest) {
    return (p.namespace === "*" || p.namespace === a.namespace) &&
      (p.resource === "*" || p.resource === a.resource) &&
      (p.apiGroup === "*" || p.apiGroup === a.apiGroup);
  }
  const np = p.nonResourcePath;
  return np === "*" || np === a.path ||
    (np.endsWith("*") && a.path.startsWith(np.replace(/\*+$/, "")));
}

/** The ABAC authorizer over parsed policies. */
export class AbacAuthorizer implements Authorizer {
  readonly name = "ABAC";
  constructor(readonly policies: readonly AbacPolicySpec[]) {}

  /** Reads and parses a policy file; throws naming the file and line. */
  static async fromFile(path: string): Promise<AbacAuthorizer> {
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (err) {
      throw new Error(
        `--authorization-policy-file: cannot read ${path}: ${(err as Error).message}`,
      );
    }
    try {
      return new AbacAuthorizer(parseAbacPolicies(text));
    } catch (err) {
      throw new Error(`--authorization-policy-file ${path}: ${(err as Error).message}`);
    }
  }

  authorize(a: AuthzAttributes): Promise<Decision> {
    for (const p of this.policies) {
      if (matches(p, a)) return Promise.resolve({ decision: "allow", reason: "" });
    }
    return Promise.resolve({ decision: "noOpinion", reason: "No policy matched." });
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const p of this.policies) {
      if (!subjectMatches(p, user)) continue;
      const verbs = p.readonly ? ["get", "list", "watch"] : ["*"];
      if (p.namespace === "*" || p.namespace === namespace) {
        resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource] });
      }
      if (p.nonResourcePath) nonResourceRules.push({ verbs, nonResourceURLs: [p.nonResourcePath] });
    }
    return { resourceRules, nonResourceRules, incomplete: false, errors: [] };
  }
}
