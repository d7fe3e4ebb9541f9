/**
 * The structure checks every built-in group's Protobuf message table gets: its messages resolve
 * with unique field numbers, chosen fields carry kubernetes/api's numbers and JSON rules, every
 * kind the group registers has a message, its fixture objects round trip, and what kubectl 1.32
 * sends for its create commands decodes to kubectl's own JSON.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  decodeObject,
  encodeObject,
  hasProtobuf,
  protobufMessageName,
} from "../../../../shared/codec/protobuf/mod.ts";
import { messageInfo } from "../../../../shared/codec/protobuf/message_table.ts";
import { SPECIAL_MESSAGES } from "../../../../shared/codec/protobuf/well_known.ts";

/** Where the Protobuf fixtures live (`<group>_v1.json`, `kubectl/*.bin`). */
export const PROTOBUF_TESTDATA = new URL("../../../testdata/protobuf/", import.meta.url);

/** `[message, json, number, keepZero]`, read from the group's generated.proto and types.go. */
export type FieldCase = [message: string, json: string, no: number, keepZero: boolean];

/** `[kubectl command, file under testdata/protobuf/kubectl/, kubectl's own JSON of it]`. */
export type KubectlCase = [command: string, file: string, expected: Record<string, unknown>];

/** One group's specifics for {@linkcode groupTableChecks}. */
export interface GroupTableSpec {
  /** The schema export's name, as test names show it (`"appsV1Messages"`). */
  messagesName: string;
  /** The schema export: message name → definition. */
  messages: Record<string, unknown>;
  /** The group version (`"apps/v1"`). */
  gv: string;
  /** Fields whose number and JSON rules are checked. */
  fields: FieldCase[];
  /** Every kind the group registers for Protobuf (with `Status` and `DeleteOptions`). */
  kinds: string[];
  /** `[groupVersion, kind]` pairs that must have no Protobuf message. */
  notRegistered?: [gv: string, kind: string][];
  /** The fixture file of objects to round trip (`"apps_v1.json"`). */
  fixture: string;
  /** Binary bodies kubectl sent for create commands, with the JSON they must decode to. */
  kubectl?: KubectlCase[];
  /** How the kubectl test names the group; the group version unless given. */
  kubectlLabel?: string;
}

function readJson(name: string): Record<string, unknown>[] {
  return JSON.parse(Deno.readTextFileSync(new URL(name, PROTOBUF_TESTDATA)));
}

/** Registers the shared structure tests for one group's Protobuf message table. */
export function groupTableChecks(spec: GroupTableSpec): void {
  const { messagesName, messages, gv, fields, kinds, fixture } = spec;

  Deno.test(`${messagesName} resolves every referenced message, with unique field numbers`, () => {
    for (const name of Object.keys(messages)) {
      const info = messageInfo(name);
      assert.ok(info, name);
      assert.equal(new Set(info.fields.map((f) => f.no)).size, info.fields.length, name);
      assert.equal(new Set(info.fields.map((f) => f.json)).size, info.fields.length, name);
      for (const f of info.fields) {
        if (f.kind !== "message") continue;
        const ref = f.message ?? "";
        assert.ok(SPECIAL_MESSAGES.has(ref) || messageInfo(ref), `${name}.${f.json} -> ${ref}`);
      }
    }
  });

  Deno.test(`${messagesName} carries the field numbers and JSON rules of kubernetes/api`, async (t) => {
    for (const [message, json, no, keepZero] of fields) {
      await t.step(`${message}.${json}`, () => {
        const f = messageInfo(message)?.fields.find((x) => x.json === json);
        assert.equal(f?.no, no);
        assert.equal(f?.keepZero, keepZero);
      });
    }
  });

  Deno.test(`hasProtobuf() accepts every kind ${gv} registers`, () => {
    for (const kind of kinds) {
      assert.ok(hasProtobuf(gv, kind), kind);
      assert.ok(messageInfo(protobufMessageName(gv, kind) ?? ""), kind);
    }
    for (const [otherGv, kind] of spec.notRegistered ?? []) {
      assert.equal(hasProtobuf(otherGv, kind), false);
    }
  });

  Deno.test(`encodeObject() round trips ${gv} objects losslessly`, async (t) => {
    for (const [i, obj] of readJson(fixture).entries()) {
      await t.step(`${i}: ${obj.kind} ${(obj.metadata as { name?: string }).name ?? ""}`, () => {
        assert.deepStrictEqual(decodeObject(encodeObject(obj)), obj);
      });
    }
  });

  const kubectl = spec.kubectl;
  if (kubectl === undefined) return;
  const label = spec.kubectlLabel ?? gv;
  Deno.test(`decodeObject() decodes what kubectl 1.32 sends for ${label} create commands`, async (t) => {
    for (const [command, file, expected] of kubectl) {
      await t.step(command, () => {
        const body = Deno.readFileSync(new URL(`kubectl/${file}`, PROTOBUF_TESTDATA));
        const obj = decodeObject(body);
        assert.deepStrictEqual(obj, expected);
        assert.deepStrictEqual(decodeObject(encodeObject(obj)), expected);
      });
    }
  });
}
