import assert from "node:assert/strict";
import { validatePriorityLevel } from "../../../../apiserver/registry/flowcontrol/priority_level_validation.ts";
import { defaultPriorityLevel } from "../../../../apiserver/registry/flowcontrol/prioritylevelconfigurations/strategy.ts";
import {
  mandatoryPriorityLevels,
  suggestedPriorityLevels,
} from "../../../../apiserver/registry/flowcontrol/bootstrap_configuration.ts";
import type { KubeObject } from "../../../../shared/api/meta/v1/types.ts";
import { fieldErrorMessage } from "../../../../shared/errors/status_error.ts";

function level(name: string, queuing: Record<string, number>): KubeObject {
  return {
    metadata: { name },
    spec: {
      type: "Limited",
      limited: { nominalConcurrencyShares: 1, limitResponse: { type: "Queue", queuing } },
    },
  };
}

const errors = (o: KubeObject) => validatePriorityLevel(o).map(fieldErrorMessage);

Deno.test("validatePriorityLevel() accepts the bootstrap levels as they are", () => {
  for (const pl of [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()]) {
    const copy = structuredClone(pl);
    defaultPriorityLevel(copy);
    assert.deepEqual(copy.spec, pl.spec, `${pl.metadata.name} is fully defaulted`);
    assert.deepEqual(errors(pl), [], String(pl.metadata.name));
  }
});

Deno.test("validatePriorityLevel() bounds shuffle sharding by 60 bits of entropy", () => {
  const base = { queueLengthLimit: 1 };
  assert.deepEqual(errors(level("ok", { ...base, queues: 128, handSize: 8 })), []);
  assert.deepEqual(errors(level("big", { ...base, queues: 128, handSize: 9 })), [
    "spec.limited.limitResponse.queuing.handSize: Invalid value: 9: required entropy bits of " +
    "deckSize 128 and handSize 9 should not be greater than 60",
  ]);
  assert.deepEqual(errors(level("q", { ...base, queues: 10_000_001, handSize: 1 })), [
    "spec.limited.limitResponse.queuing.queues: Invalid value: 10000001: must not be greater " +
    "than 10000000",
  ]);
});

Deno.test("defaultPriorityLevel() sets v1's defaults and keeps zero shares", () => {
  const unset = level("u", {});
  delete (unset.spec as { limited: Record<string, unknown> }).limited.nominalConcurrencyShares;
  defaultPriorityLevel(unset);
  assert.deepEqual(unset.spec, {
    type: "Limited",
    limited: {
      nominalConcurrencyShares: 30,
      lendablePercent: 0,
      limitResponse: { type: "Queue", queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
    },
  });
  const zero: KubeObject = { metadata: {}, spec: { limited: { nominalConcurrencyShares: 0 } } };
  defaultPriorityLevel(zero);
  assert.deepEqual(zero.spec, { limited: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
  const exempt: KubeObject = { metadata: {}, spec: { type: "Exempt", exempt: {} } };
  defaultPriorityLevel(exempt);
  assert.deepEqual(exempt.spec, {
    type: "Exempt",
    exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 },
  });
});
