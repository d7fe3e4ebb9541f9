/**
 * `apiserver_authorization_decisions_total{type,name,decision}`: the terminal decisions
 * (`allowed`, `denied`) of each configured authorizer, as Kubernetes counts them. An
 * authorizer is wrapped only when there is a registry to count in.
 *
 * @module
 */
import type { Counter, MetricsRegistry } from "../../metrics/mod.ts";
import type { Authorizer } from "./authorizer.ts";

/** Wraps authorizers so their decisions are counted. */
export type DecisionCounter = (a: Authorizer, type: string, name: string) => Authorizer;

/** A wrapper counting into `registry`, or the identity when there is none. */
export function decisionCounter(registry?: MetricsRegistry): DecisionCounter {
  if (!registry) return (a) => a;
  const counter: Counter = registry.counter({
    name: "apiserver_authorization_decisions_total",
    help:
      "Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.",
    labels: ["type", "name", "decision"],
  });
  return (a, type, name) => {
    const wrapped: Authorizer = {
      name: a.name,
      async authorize(attrs) {
        const d = await a.authorize(attrs);
        if (d.decision !== "noOpinion") {
          counter.inc({ type, name, decision: d.decision === "allow" ? "allowed" : "denied" });
        }
        return d;
      },
    };
    if (a.rulesFor) wrapped.rulesFor = a.rulesFor.bind(a);
    return wrapped;
  };
}
