/**
 * Updater: how a write changes field ownership (structured-merge-diff's `merge.Updater`).
 *
 * - `update` (create, PUT, any non-apply patch): fields the write added or modified move to the
 *   writer (it never conflicts); removed fields leave every manager.
 * - `apply`: the config is merged into the live object; fields the applier owned before, left
 *   out now and owned by nobody else are pruned; fields another manager owns that the apply
 *   adds or modifies conflict unless forced (then they move to the applier).
 *
 * @module
 */
import { compareTyped, type Comparison } from "./compare_values.ts";
import { type Conflict, ConflictError } from "./conflict.ts";
import { ensureNamedFieldsAreMembers } from "./ensure_named_fields.ts";
import { FieldSet } from "./field_set.ts";
import type { ManagedFieldSets } from "./managed_fields_set.ts";
import type { Path } from "./path_element.ts";
import { reconcileFieldSetWithSchema } from "./reconcile_schema.ts";
import { removeItems } from "./remove_items.ts";
import type { Schema, TypeRef } from "./schema.ts";
import { toFieldSet } from "./to_field_set.ts";
import { mergeValues } from "./merge_values.ts";
import { deepEqual } from "../../shared/json/deep_equal.ts";

/** Result of an apply. */
export interface ApplyResult {
  /** The new object, or undefined when the apply changes nothing in the object. */
  object: unknown;
  managers: ManagedFieldSets;
}

/** Computes ownership changes for one root type. */
export class Updater {
  readonly schema: Schema;
  readonly root: TypeRef;
  /** Fields never tracked (reset fields such as `status` of the main resource). */
  readonly ignore?: FieldSet;

  constructor(schema: Schema, root: TypeRef, ignore?: FieldSet) {
    this.schema = schema;
    this.root = root;
    this.ignore = ignore && !ignore.empty() ? ignore : undefined;
  }

  #filter(s: FieldSet): FieldSet {
    return this.ignore ? s.recursiveDifference(this.ignore) : s;
  }

  #fieldSet(v: unknown): FieldSet {
    return toFieldSet(this.schema, this.root, v);
  }

  #ensure(s: FieldSet): FieldSet {
    return ensureNamedFieldsAreMembers(this.schema, this.root, s);
  }

  #reconcile(managers: ManagedFieldSets): ManagedFieldSets {
    const out: ManagedFieldSets = new Map();
    for (const [m, vs] of managers) {
      const r = reconcileFieldSetWithSchema(this.schema, this.root, vs.set);
      out.set(m, r ? { ...vs, set: r } : vs);
    }
    return out;
  }

  #update(
    oldObj: unknown,
    newObj: unknown,
    managers: ManagedFieldSets,
    workflow: string,
    force: boolean,
  ): Comparison {
    const raw = compareTyped(this.schema, this.root, oldObj, newObj);
    const compare: Comparison = {
      added: this.#filter(raw.added),
      modified: this.#filter(raw.modified),
      removed: this.#filter(raw.removed),
    };
    const changed = compare.modified.union(compare.added);
    const conflicts = new Map<string, FieldSet>();
    for (const [m, vs] of managers) {
      if (m === workflow) continue;
      const c = vs.set.intersection(changed);
      if (!c.empty()) conflicts.set(m, c);
    }
    if (!force && conflicts.size > 0) {
      const list: Conflict[] = [];
      for (const m of [...conflicts.keys()].sort()) {
        conflicts.get(m)!.iterate((path: Path) => list.push({ manager: m, path }));
      }
      throw new ConflictError(list);
    }
    for (const [m, c] of conflicts) {
      const vs = managers.get(m)!;
      managers.set(m, { ...vs, set: vs.set.difference(c) });
    }
    if (!compare.removed.empty()) {
      for (const [m, vs] of managers) {
        if (m === workflow) continue;
        managers.set(m, { ...vs, set: vs.set.difference(compare.removed) });
      }
    }
    for (const [m, vs] of [...managers]) if (vs.set.empty()) managers.delete(m);
    return compare;
  }

  /** Ownership after a non-apply write by `manager` from `live` to `next`. */
  update(
    live: unknown,
    next: unknown,
    version: string,
    managersIn: ManagedFieldSets,
    manager: string,
  ): ManagedFieldSets {
    const managers = this.#reconcile(managersIn);
    const compare = this.#update(live, next, managers, manager, true);
    const prev = managers.get(manager)?.set ?? new FieldSet();
    const set = this.#filter(
      prev.difference(compare.removed).union(compare.modified).union(compare.added),
    );
    if (set.empty()) managers.delete(manager);
    else managers.set(manager, { set, apiVersion: version, applied: false });
    return managers;
  }

  /** Applies `config` as `manager`; throws ConflictError unless `force`. */
  apply(
    live: unknown,
    config: unknown,
    version: string,
    managersIn: ManagedFieldSets,
    manager: string,
    force: boolean,
  ): ApplyResult {
    const managers = this.#reconcile(managersIn);
    const merged = mergeValues(this.schema, this.root, live, config) ?? {};
    const last = managers.get(manager);
    const set = this.#filter(this.#fieldSet(config));
    managers.set(manager, { set, apiVersion: version, applied: true });
    const next = this.#prune(merged, managers, last?.set);
    this.#update(live, next, managers, manager, force);
    return { object: deepEqual(live, next) ? undefined : next, managers };
  }

  #prune(
    merged: unknown,
    managers: ManagedFieldSets,
    last: FieldSet | undefined,
  ): unknown {
    if (!last || last.empty()) return merged;
    let pruned = removeItems(this.schema, this.root, merged, this.#ensure(last)) ?? {};
    // Add back the items some manager (the applier included) still owns.
    let owned = new FieldSet();
    for (const vs of managers.values()) owned = owned.union(vs.set);
    const mergedSet = this.#ensure(this.#fieldSet(merged));
    let prunedSet = this.#ensure(this.#fieldSet(pruned));
    pruned = removeItems(
      this.schema,
      this.root,
      merged,
      mergedSet.difference(prunedSet.union(this.#ensure(owned))),
    ) ?? {};
    // Add back dangling items: only what the applier owned last time may go.
    prunedSet = this.#ensure(this.#fieldSet(pruned));
    return removeItems(
      this.schema,
      this.root,
      merged,
      mergedSet.difference(prunedSet).intersection(this.#ensure(last)),
    ) ?? {};
  }
}
