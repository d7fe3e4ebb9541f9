/**
 * FieldSet: a set of field paths stored as a trie (structured-merge-diff's `fieldpath.Set`).
 * A node has members (paths ending here) and children (paths continuing through an element).
 * Sets are treated as immutable once built; every operation returns a new set.
 *
 * @module
 */
import {
  comparePathElements,
  type Path,
  type PathElement,
  serializePathElement,
} from "./path_element.ts";

interface Child {
  pe: PathElement;
  set: FieldSet;
}

/** A set of field paths. */
export class FieldSet {
  /** Members by serialized element. */
  readonly members = new Map<string, PathElement>();
  /** Children by serialized element. */
  readonly children = new Map<string, Child>();

  /** A set holding `paths`. */
  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path (mutates; use only while building). */
  insert(p: Path): void {
    if (p.length === 0) return;
    if (p.length === 1) {
      this.members.set(serializePathElement(p[0]), p[0]);
      return;
    }
    this.descend(p[0]).insert(p.slice(1));
  }

  /** The child set under `pe`, created when missing (mutates; use only while building). */
  descend(pe: PathElement): FieldSet {
    const k = serializePathElement(pe);
    let c = this.children.get(k);
    if (!c) {
      c = { pe, set: new FieldSet() };
      this.children.set(k, c);
    }
    return c.set;
  }

  /**
   * The child set under the first `depth` elements of `p`, created when missing (mutates; use
   * only while building).
   */
  descendPath(p: Path, depth: number): FieldSet {
    return depth <= 0 ? this : this.descend(p[0]).descendPath(p.slice(1), depth - 1);
  }

  /** Whether the set holds no path. */
  empty(): boolean {
    if (this.members.size > 0) return false;
    for (const c of this.children.values()) if (!c.set.empty()) return false;
    return true;
  }

  /** Number of paths. */
  size(): number {
    let n = this.members.size;
    for (const c of this.children.values()) n += c.set.size();
    return n;
  }

  /** Whether `p` is a member. */
  has(p: Path): boolean {
    if (p.length === 0) return false;
    if (p.length === 1) return this.members.has(serializePathElement(p[0]));
    const child = this.children.get(serializePathElement(p[0]));
    return child ? child.set.has(p.slice(1)) : false;
  }

  /** The paths under `pe` (relative), or an empty set. */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(serializePathElement(pe))?.set ?? new FieldSet();
  }

  /** Union. */
  union(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, pe] of o.members) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      out.children.set(k, { pe: c.pe, set: oc ? c.set.union(oc.set) : c.set });
    }
    for (const [k, c] of o.children) if (!this.children.has(k)) out.children.set(k, c);
    return out;
  }

  /** Intersection. */
  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      if (!oc) continue;
      const r = c.set.intersection(oc.set);
      if (!r.empty()) out.children.set(k, { pe: c.pe, set: r });
    }
    return out;
  }

  /** Paths of this set not in `o` (children of a removed member stay). */
  difference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const oc = o.children.get(k);
      if (!oc) {
        out.children.set(k, c);
        continue;
      }
      const r = c.set.difference(oc.set);
      if (!r.empty()) out.children.set(k, { pe: c.pe, set: r });
    }
    return out;
  }

  /** Like difference, but a member of `o` also removes every path below it. */
  recursiveDifference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (o.members.has(k)) continue;
      const oc = o.children.get(k);
      if (!oc) {
        out.children.set(k, c);
        continue;
      }
      const r = c.set.recursiveDifference(oc.set);
      if (!r.empty()) out.children.set(k, { pe: c.pe, set: r });
    }
    return out;
  }

  /** The members that have no children (the leaves of the trie). */
  leaves(): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!this.children.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) out.children.set(k, { pe: c.pe, set: c.set.leaves() });
    return out;
  }

  /** Equality. */
  equals(o: FieldSet): boolean {
    if (this.members.size !== o.members.size) return false;
    for (const k of this.members.keys()) if (!o.members.has(k)) return false;
    const mine = [...this.children].filter(([, c]) => !c.set.empty());
    const theirs = [...o.children].filter(([, c]) => !c.set.empty());
    if (mine.length !== theirs.length) return false;
    for (const [k, c] of mine) {
      const oc = o.children.get(k);
      if (!oc || !c.set.equals(oc.set)) return false;
    }
    return true;
  }

  /** Members sorted in path element order. */
  sortedMembers(): PathElement[] {
    return [...this.members.values()].sort(comparePathElements);
  }

  /** Non-empty children sorted in path element order. */
  sortedChildren(): Child[] {
    return [...this.children.values()].filter((c) => !c.set.empty()).sort((a, b) =>
      comparePathElements(a.pe, b.pe)
    );
  }

  /** Calls `f` with every path, in order (members of a node before its children). */
  iterate(f: (p: Path) => void, prefix: PathElement[] = []): void {
    for (const pe of this.sortedMembers()) f([...prefix, pe]);
    for (const c of this.sortedChildren()) c.set.iterate(f, [...prefix, c.pe]);
  }

  /** Every path, in order. */
  paths(): Path[] {
    const out: Path[] = [];
    this.iterate((p) => out.push(p));
    return out;
  }
}
