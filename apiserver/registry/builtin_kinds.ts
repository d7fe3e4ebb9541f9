/** The built-in kinds this server serves, in discovery order. */
import type { KindDef } from "./generic/kind.ts";
import { namespaceKind } from "./core/namespaces/strategy.ts";
import { nodeKind } from "./core/nodes/strategy.ts";
import { podKind } from "./core/pods/strategy.ts";
import { configMapKind } from "./core/configmaps/strategy.ts";
import { secretKind } from "./core/secrets/strategy.ts";
import { serviceAccountKind } from "./core/serviceaccounts/strategy.ts";
import { eventKind } from "./core/events/strategy.ts";
import { leaseKind } from "./coordination/leases/strategy.ts";

/** Every built-in kind. */
export const BUILTIN_KINDS: readonly KindDef[] = [
  configMapKind,
  eventKind,
  namespaceKind,
  nodeKind,
  podKind,
  secretKind,
  serviceAccountKind,
  leaseKind,
];
