import { table } from "./helpers.ts";
import { Duration } from "../../../../apiserver/cel/mod.ts";

Deno.test("registerListLibrary() provides indexOf, lastIndexOf, min, max, sum and isSorted", async (t) => {
  await table(t, [
    { expr: "[1, 2, 3, 2].indexOf(2)", want: 1n },
    { expr: "[1, 2, 3, 2].indexOf(7)", want: -1n },
    { expr: "[1, 2, 3, 2].lastIndexOf(2)", want: 3n },
    { expr: "['a', 'b'].lastIndexOf('z')", want: -1n },
    { expr: "[3, 1, 2].min()", want: 1n },
    { expr: "[3, 1, 2].max()", want: 3n },
    { expr: "['b', 'a'].min()", want: "a" },
    { expr: "[1.5, 0.5].max()", want: 1.5 },
    { expr: "[1, 2, 3].sum()", want: 6n },
    { expr: "[1.5, 2.5].sum()", want: 4.0 },
    { expr: "[1u, 2u].sum() == 3u", want: true },
    { expr: "[duration('1s'), duration('500ms')].sum() == duration('1.5s')", want: true },
    { expr: "x.sum()", vars: { x: [] as bigint[] }, want: 0n },
    { expr: "[1, 2, 2, 3].isSorted()", want: true },
    { expr: "[2, 1].isSorted()", want: false },
    { expr: "['a', 'b'].isSorted()", want: true },
    { expr: "x.min()", vars: { x: [] as bigint[] }, error: "empty list" },
    { expr: "[9223372036854775807, 1].sum()", error: "overflow" },
  ]);
  void Duration;
});
