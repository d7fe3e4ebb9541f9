import assert from "node:assert";
import { LruCache } from "../../../apiserver/cel/lru_cache.ts";

Deno.test("LruCache evicts the least recently used entry when full", () => {
  const c = new LruCache<string, number>(2);
  c.set("a", 1);
  c.set("b", 2);
  assert.equal(c.get("a"), 1);
  c.set("c", 3);
  assert.equal(c.get("b"), undefined);
  assert.equal(c.get("a"), 1);
  assert.equal(c.get("c"), 3);
  assert.equal(c.size, 2);
});

Deno.test("LruCache never holds more than its capacity", () => {
  const c = new LruCache<number, number>(10);
  for (let i = 0; i < 1000; i++) c.set(i, i);
  assert.equal(c.size, 10);
  assert.equal(c.get(999), 999);
  assert.equal(c.get(989), undefined);
});

Deno.test("LruCache replaces the value of an existing key without growing", () => {
  const c = new LruCache<string, number>(2);
  c.set("a", 1);
  c.set("a", 2);
  assert.equal(c.size, 1);
  assert.equal(c.get("a"), 2);
});

Deno.test("LruCache keeps the total weight within its bound", () => {
  const c = new LruCache<string, string>(100, 10);
  c.set("a", "a", 4);
  c.set("b", "b", 4);
  c.set("c", "c", 4);
  assert.equal(c.get("a"), undefined);
  assert.equal(c.weight, 8);
  c.set("huge", "huge", 11);
  assert.equal(c.get("huge"), undefined);
  assert.equal(c.size, 2);
  c.set("b", "b", 1);
  assert.equal(c.weight, 5);
});
