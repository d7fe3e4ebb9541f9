/**
 * Name validators per kind, as Kubernetes' `ValidateNameFunc`s: given a name (or, with
 * `prefix`, a generateName prefix that will get a suffix appended) they return the problems.
 *
 * @module
 */
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isValidPathSegmentName,
  isValidPathSegmentPrefix,
} from "./identifiers.ts";

/** Validates a name; `prefix` is true for a generateName prefix. */
export type NameValidator = (name: string, prefix: boolean) => string[];

// Kubernetes replaces a trailing dash of a prefix (longer than one character) before checking,
// dropping the last two characters and appending "a"; kept as is for identical results.
function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith("-")) return name.slice(0, name.length - 2) + "a";
  return name;
}

/** Names that must be DNS-1123 subdomains (most kinds: ConfigMap, Secret, Pod, Node, ...). */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** Names that must be DNS-1123 labels (Namespace, Service, ...). */
export const nameIsDNSLabel: NameValidator = (name, prefix) =>
  isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** Names that must be DNS-1035 labels. */
export const nameIsDNS1035Label: NameValidator = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** Names that only need to be valid path segments (RBAC roles and bindings). */
export const nameIsPathSegment: NameValidator = (name, prefix) =>
  prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);

/** Namespace names: DNS-1123 labels. */
export const validateNamespaceName: NameValidator = nameIsDNSLabel;
