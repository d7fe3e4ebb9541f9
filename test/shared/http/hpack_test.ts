import assert from "node:assert/strict";
import {
  encodeHeaders,
  HeaderListTooLargeError,
  HpackDecoder,
  HpackError,
} from "../../../shared/http/hpack.ts";
import {
  EOS,
  HUFFMAN_CODES,
  HUFFMAN_LENGTHS,
  huffmanDecode,
  huffmanEncode,
  huffmanEncodedLength,
} from "../../../shared/http/hpack_huffman.ts";

/** Octets from hex digits with any whitespace between them, as printed in RFC 7541. */
function hex(s: string): Uint8Array {
  const digits = s.replace(/\s+/g, "");
  return Uint8Array.from({ length: digits.length / 2 }, (_, i) => {
    return parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  });
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The header block of one indexed field (RFC 7541 section 6.1). */
function indexed(index: number): Uint8Array {
  if (index < 127) return Uint8Array.of(0x80 | index);
  const out = [0xff];
  let rest = index - 127;
  for (; rest >= 128; rest >>>= 7) out.push((rest & 0x7f) | 0x80);
  out.push(rest);
  return Uint8Array.from(out);
}

/**
 * The dynamic table of `d`, newest entry first, as `[name, value, …]`: read through indexed
 * fields, which leave the table as it is (62 is the newest entry, the first index past the
 * last entry fails).
 */
function dynamicTable(d: HpackDecoder): string[] {
  const entries: string[] = [];
  for (let index = 62;; index++) {
    try {
      entries.push(...d.decode(indexed(index)));
    } catch (err) {
      if (err instanceof HpackError && /beyond/.test(err.message)) return entries;
      throw err;
    }
  }
}

/** The size of a table or header list (RFC 7541 section 4.1). */
function size(fields: string[]): number {
  let n = 0;
  for (let i = 0; i < fields.length; i += 2) n += fields[i].length + fields[i + 1].length + 32;
  return n;
}

/** Whether `err` is an HpackError other than a too large header list, with a matching message. */
function compressionError(message: RegExp): (err: unknown) => boolean {
  return (err) =>
    err instanceof HpackError && !(err instanceof HeaderListTooLargeError) &&
    message.test(err.message);
}

interface Step {
  block: string;
  headers: string[];
  /** The dynamic table after the block, newest entry first. */
  table: string[];
  tableSize: number;
}

/** Decodes header blocks in order on one connection, checking the output and the table. */
async function decodeSeries(t: Deno.TestContext, maxTableSize: number, steps: Step[]) {
  const d = new HpackDecoder(maxTableSize);
  for (const [i, step] of steps.entries()) {
    await t.step(`block ${i + 1}`, () => {
      assert.deepEqual(d.decode(hex(step.block)), step.headers);
      const table = dynamicTable(d);
      assert.deepEqual(table, step.table);
      assert.equal(size(table), step.tableSize);
    });
  }
}

const DATE_1 = "Mon, 21 Oct 2013 20:13:21 GMT";
const DATE_2 = "Mon, 21 Oct 2013 20:13:22 GMT";
const COOKIE = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1";

/** RFC 7541 C.3 and C.4: the same requests, so the same headers and tables. */
const REQUESTS: Omit<Step, "block">[] = [
  {
    headers: [":method", "GET", ":scheme", "http", ":path", "/", ":authority", "www.example.com"],
    table: [":authority", "www.example.com"],
    tableSize: 57,
  },
  {
    headers: [
      ...[":method", "GET", ":scheme", "http", ":path", "/", ":authority", "www.example.com"],
      ...["cache-control", "no-cache"],
    ],
    table: ["cache-control", "no-cache", ":authority", "www.example.com"],
    tableSize: 110,
  },
  {
    headers: [
      ...[":method", "GET", ":scheme", "https", ":path", "/index.html"],
      ...[":authority", "www.example.com", "custom-key", "custom-value"],
    ],
    table: [
      ...["custom-key", "custom-value", "cache-control", "no-cache"],
      ...[":authority", "www.example.com"],
    ],
    tableSize: 164,
  },
];

/** RFC 7541 C.5 and C.6: the same responses, with a table of 256 octets. */
const RESPONSES: Omit<Step, "block">[] = [
  {
    headers: [
      ...[":status", "302", "cache-control", "private", "date", DATE_1],
      ...["location", "https://www.example.com"],
    ],
    table: [
      ...["location", "https://www.example.com", "date", DATE_1],
      ...["cache-control", "private", ":status", "302"],
    ],
    tableSize: 222,
  },
  {
    headers: [
      ...[":status", "307", "cache-control", "private", "date", DATE_1],
      ...["location", "https://www.example.com"],
    ],
    table: [
      ...[":status", "307", "location", "https://www.example.com"],
      ...["date", DATE_1, "cache-control", "private"],
    ],
    tableSize: 222,
  },
  {
    headers: [
      ...[":status", "200", "cache-control", "private", "date", DATE_2],
      ...["location", "https://www.example.com", "content-encoding", "gzip"],
      ...["set-cookie", COOKIE],
    ],
    table: ["set-cookie", COOKIE, "content-encoding", "gzip", "date", DATE_2],
    tableSize: 215,
  },
];

Deno.test("HpackDecoder.decode() reads integers of RFC 7541 C.1", async (t) => {
  // Table size updates have a 5-bit prefix: C.1.1 is 10, C.1.2 is 1337. (C.1.3 has an
  // 8-bit prefix, which no field representation uses.)
  const cases: [string, string, number][] = [
    ["C.1.1: 10 in the prefix", "2a", 10],
    ["C.1.2: 1337 with continuation octets", "3f 9a 0a", 1337],
    ["the largest value in the prefix", "3e", 30],
    ["the prefix full, then 0", "3f 00", 31],
    ["a redundant zero continuation octet", "3f 9a 8a 00", 1337],
  ];
  for (const [name, block, value] of cases) {
    await t.step(name, () => {
      assert.deepEqual(new HpackDecoder(value).decode(hex(block)), []);
      assert.throws(
        () => new HpackDecoder(value - 1).decode(hex(block)),
        compressionError(/above/),
      );
    });
  }
});

Deno.test("HpackDecoder.decode() decodes the field representations of RFC 7541 C.2", async (t) => {
  // [name, blocks decoded in order, fields of the last, dynamic table after]
  const cases: [string, string[], string[], string[]][] = [
    [
      "C.2.1: literal with indexing",
      ["400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"],
      ["custom-key", "custom-header"],
      ["custom-key", "custom-header"],
    ],
    [
      "C.2.2: literal without indexing",
      ["040c 2f73 616d 706c 652f 7061 7468"],
      [":path", "/sample/path"],
      [],
    ],
    [
      "C.2.3: literal never indexed",
      ["1008 7061 7373 776f 7264 0673 6563 7265 74"],
      ["password", "secret"],
      [],
    ],
    ["C.2.4: indexed", ["82"], [":method", "GET"], []],
    ["never indexed, new name", ["1001 7801 79"], ["x", "y"], []],
    ["without indexing, new name", ["0001 7801 79"], ["x", "y"], []],
    [
      "never indexed, name index past the prefix",
      ["1f19 033a 2d29"],
      ["if-modified-since", ":-)"],
      [],
    ],
    [
      "incremental indexing, name of a dynamic entry",
      ["4001 6101 62", "7e04 6162 6364"],
      ["a", "abcd"],
      ["a", "abcd", "a", "b"],
    ],
    ["indexed dynamic entry", ["4001 6101 62", "be be"], ["a", "b", "a", "b"], ["a", "b"]],
    ["the last static entry", ["bd"], ["www-authenticate", ""], []],
    ["empty name and value", ["4000 00"], ["", ""], ["", ""]],
    ["octets above 127", ["0001 ff02 e980"], ["\xff", "\xe9\x80"], []],
    ["no fields", [""], [], []],
  ];
  for (const [name, blocks, headers, table] of cases) {
    await t.step(name, () => {
      const d = new HpackDecoder();
      let decoded: string[] = [];
      for (const block of blocks) decoded = d.decode(hex(block));
      assert.deepEqual(decoded, headers);
      assert.deepEqual(dynamicTable(d), table);
    });
  }
});

Deno.test("HpackDecoder.decode() decodes the requests of RFC 7541 C.3 (no Huffman)", async (t) => {
  const blocks = [
    "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
    "8286 84be 5808 6e6f 2d63 6163 6865",
    "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
  ];
  await decodeSeries(t, 4096, REQUESTS.map((step, i) => ({ ...step, block: blocks[i] })));
});

Deno.test("HpackDecoder.decode() decodes the requests of RFC 7541 C.4 (Huffman)", async (t) => {
  const blocks = [
    "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
    "8286 84be 5886 a8eb 1064 9cbf",
    "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
  ];
  await decodeSeries(t, 4096, REQUESTS.map((step, i) => ({ ...step, block: blocks[i] })));
});

Deno.test("HpackDecoder.decode() decodes the responses of RFC 7541 C.5 (no Huffman, evictions)", async (t) => {
  const blocks = [
    `4803 3330 3258 0770 7269 7661 7465 611d
     4d6f 6e2c 2032 3120 4f63 7420 3230 3133
     2032 303a 3133 3a32 3120 474d 546e 1768
     7474 7073 3a2f 2f77 7777 2e65 7861 6d70
     6c65 2e63 6f6d`,
    "4803 3330 37c1 c0bf",
    `88c1 611d 4d6f 6e2c 2032 3120 4f63 7420
     3230 3133 2032 303a 3133 3a32 3220 474d
     54c0 5a04 677a 6970 7738 666f 6f3d 4153
     444a 4b48 514b 425a 584f 5157 454f 5049
     5541 5851 5745 4f49 553b 206d 6178 2d61
     6765 3d33 3630 303b 2076 6572 7369 6f6e
     3d31`,
  ];
  await decodeSeries(t, 256, RESPONSES.map((step, i) => ({ ...step, block: blocks[i] })));
});

Deno.test("HpackDecoder.decode() decodes the responses of RFC 7541 C.6 (Huffman, evictions)", async (t) => {
  const blocks = [
    `4882 6402 5885 aec3 771a 4b61 96d0 7abe
     9410 54d4 44a8 2005 9504 0b81 66e0 82a6
     2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8
     e9ae 82ae 43d3`,
    "4883 640e ffc1 c0bf",
    `88c1 6196 d07a be94 1054 d444 a820 0595
     040b 8166 e084 a62d 1bff c05a 839b d9ab
     77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b
     3960 d5af 2708 7f36 72c1 ab27 0fb5 291f
     9587 3160 65c0 03ed 4ee5 b106 3d50 07`,
  ];
  await decodeSeries(t, 256, RESPONSES.map((step, i) => ({ ...step, block: blocks[i] })));
});

Deno.test("HpackDecoder.decode() applies table size updates and evictions", async (t) => {
  await t.step("an update to 0 empties the table, a later one lets it fill again", () => {
    const d = new HpackDecoder();
    d.decode(hex("4001 6101 62 4001 6301 64"));
    assert.deepEqual(dynamicTable(d), ["c", "d", "a", "b"]);
    assert.deepEqual(d.decode(hex("20")), []);
    assert.deepEqual(dynamicTable(d), []);
    assert.deepEqual(d.decode(hex("20 3fe1 1f 4001 6501 66")), ["e", "f"]); // two updates
    assert.deepEqual(dynamicTable(d), ["e", "f"]);
  });
  await t.step("a smaller size evicts the oldest entries", () => {
    const d = new HpackDecoder();
    d.decode(hex("4001 6101 62 4001 6301 64"));
    d.decode(hex("3f 09")); // 31 + 9 = 40 octets: room for one entry of 34
    assert.deepEqual(dynamicTable(d), ["c", "d"]);
    d.decode(hex("4001 6501 66"));
    assert.deepEqual(dynamicTable(d), ["e", "f"]);
  });
  await t.step("an entry larger than the table empties it", () => {
    const d = new HpackDecoder(68);
    d.decode(hex("4001 6101 62 4001 6301 64"));
    assert.deepEqual(dynamicTable(d), ["c", "d", "a", "b"]);
    assert.deepEqual(d.decode(hex("4001 7803 7979 79")), ["x", "yyy"]); // 36: evicts both
    assert.deepEqual(dynamicTable(d), ["x", "yyy"]);
    assert.deepEqual(d.decode(hex("4001 7a24" + "7a".repeat(36))), ["z", "z".repeat(36)]);
    assert.deepEqual(dynamicTable(d), []);
  });
  await t.step("a table of size 0 stays empty", () => {
    const d = new HpackDecoder(0);
    assert.deepEqual(d.decode(hex("4001 6101 62")), ["a", "b"]);
    assert.deepEqual(dynamicTable(d), []);
  });
  await t.step("a long connection of evictions", () => {
    const d = new HpackDecoder(256);
    for (let i = 0; i < 1000; i++) {
      const value = String(i).padStart(4, "0");
      const block = Uint8Array.of(0x40, 1, 0x6b, 4, ...Array.from(value, (c) => c.charCodeAt(0)));
      assert.deepEqual(d.decode(block), ["k", value]);
    }
    // 256 / (1 + 4 + 32) = 6 entries fit
    assert.deepEqual(
      dynamicTable(d),
      ["0999", "0998", "0997", "0996", "0995", "0994"].flatMap((v) => ["k", v]),
    );
  });
});

Deno.test("HpackDecoder.decode() refuses malformed header blocks", async (t) => {
  const cases: [string, string, RegExp, number?][] = [
    ["indexed field with index 0", "80", /index 0/],
    ["index past the static table", "be", /beyond/],
    ["index past the dynamic table", "4001 6101 62 bf", /beyond/],
    ["name index past the tables", "7e 0162", /beyond/],
    ["index far out of range", "ff ff 7f", /beyond/],
    ["Huffman padding of 8 bits", "0081 ff 0161", /longer than 7 bits/],
    ["Huffman padding of 11 bits", "0082 1fff 0161", /longer than 7 bits/],
    ["Huffman padding of zeros", "0081 18 0161", /padding other than/],
    ["Huffman padding partly zeros", "0081 1e 0161", /padding other than/],
    ["Huffman code of EOS", "0084 ffff ffff 0161", /EOS/],
    ["Huffman code of EOS after a symbol", "0085 1fff ffff ff 0161", /EOS/],
    ["table size update above the setting", "3fe2 1f", /above the limit 4096/],
    ["table size update after a field", "82 20", /after a field/],
    ["table size update after a literal", "0001 6101 62 3f e1 1f", /after a field/],
    ["truncated in an integer", "ff", /truncated in an integer/],
    ["truncated in a continuation", "ff 80", /truncated in an integer/],
    ["truncated before a name", "40", /truncated before a string/],
    ["truncated before a value", "0001 61", /truncated before a string/],
    ["truncated in a string", "400a 6375", /truncated in a string/],
    ["truncated in a Huffman string", "0085 1f", /truncated in a string/],
    ["string length past the block", "0001 617f ff 0f 61", /truncated in a string/],
    ["integer above 2^31 - 1", "ff ff ff ff ff 0f", /too large/],
    ["integer just above 2^31 - 1", "3f e1 ff ff ff 07", /too large/],
    ["integer with 6 continuation octets", "ff 80 80 80 80 80 00", /too long/],
  ];
  for (const [name, block, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => new HpackDecoder().decode(hex(block)), compressionError(message));
    });
  }
  await t.step("2^31 - 1 itself is read", () => {
    // As a table size update: refused as above the setting, not as an integer overflow.
    assert.throws(
      () => new HpackDecoder().decode(hex("3f e0 ff ff ff 07")),
      compressionError(/update to 2147483647 above/),
    );
  });
});

Deno.test("HpackDecoder.decode() refuses a header list larger than the limit after decoding it", async (t) => {
  const c3 = [
    "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
    "8286 84be 5808 6e6f 2d63 6163 6865",
  ];
  await t.step("at the limit", () => {
    assert.deepEqual(new HpackDecoder().decode(hex(c3[0]), 180), REQUESTS[0].headers);
  });
  await t.step("one octet over, and the table is kept", () => {
    const d = new HpackDecoder();
    assert.throws(
      () => d.decode(hex(c3[0]), 179),
      (err: unknown) =>
        err instanceof HeaderListTooLargeError && err instanceof HpackError &&
        err.size === 180 && err.limit === 179,
    );
    assert.deepEqual(dynamicTable(d), REQUESTS[0].table);
    assert.deepEqual(d.decode(hex(c3[1])), REQUESTS[1].headers);
    assert.deepEqual(dynamicTable(d), REQUESTS[1].table);
  });
  await t.step("a malformed block is a compression error even when too large", () => {
    assert.throws(
      () => new HpackDecoder().decode(hex(c3[0] + "80"), 10),
      compressionError(/index 0/),
    );
  });
});

Deno.test("encodeHeaders() encodes fields without the dynamic table", async (t) => {
  const cases: [string, string[], string][] = [
    ["a static entry as its index", [":status", "200"], "88"],
    ["another static entry", [":status", "404"], "8d"],
    ["a static name, Huffman value", [":status", "201"], "08 82 1003"],
    ["a static name past the 4-bit prefix", ["content-length", "0"], "0f0d 01 30"],
    ["a new name", ["x-a", "\x00"], "00 03 782d61 01 00"],
    ["a 1337-octet raw value", ["x", "\x00".repeat(1337)], "00 01 78 7f ba 09" + "00".repeat(1337)],
    ["nothing", [], ""],
  ];
  for (const [name, fields, expected] of cases) {
    await t.step(name, () => assert.equal(toHex(encodeHeaders(fields)), toHex(hex(expected))));
  }
  await t.step("refuses an odd list and chars above 255", () => {
    assert.throws(() => encodeHeaders(["x"]), RangeError);
    assert.throws(() => encodeHeaders(["x", "\u0100"]), RangeError);
  });
  await t.step("returns a block that later calls leave alone", () => {
    const first = encodeHeaders(["x-first", "1"]);
    const copy = first.slice();
    encodeHeaders(["x-second", "2".repeat(100)]);
    assert.deepEqual(first, copy);
  });
});

Deno.test("encodeHeaders() output decodes to the same fields", async (t) => {
  const all = String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i));
  const cases: [string, string[]][] = [
    ["200 JSON", [
      ...[":status", "200", "content-type", "application/json"],
      ...["content-length", "1234", "date", DATE_1],
    ]],
    ["201 with location", [":status", "201", "location", "/api/v1/namespaces/default/pods/p"]],
    ["404", [":status", "404", "content-type", "text/plain; charset=utf-8", "content-length", "9"]],
    ["static entries only", [":status", "304", "accept-encoding", "gzip, deflate"]],
    ["empty values", [":status", "200", "x-empty", "", "cache-control", ""]],
    ["a non-static name", [":status", "200", "audit-id", "0d6a4b7c-1f3e-4a2b-9c8d-7e6f5a4b3c2d"]],
    ["a long value", [":status", "200", "warning", "299 - " + "x".repeat(20000)]],
    ["a long name", ["x-".padEnd(5000, "n"), "v"]],
    ["every octet", [":status", "500", "x-octets", all, all, "v"]],
    ["repeated names", ["set-cookie", "a=1", "set-cookie", "b=2", "vary", "accept"]],
  ];
  for (const [name, fields] of cases) {
    await t.step(name, () => {
      const d = new HpackDecoder();
      const block = encodeHeaders(fields);
      assert.deepEqual(d.decode(block), fields);
      assert.deepEqual(dynamicTable(d), []);
      assert.deepEqual(d.decode(encodeHeaders(fields)), fields); // the same on a used decoder
    });
  }
});

Deno.test("HUFFMAN_CODES is RFC 7541's complete canonical prefix code", async (t) => {
  await t.step("257 symbols, EOS last", () => {
    assert.equal(HUFFMAN_CODES.length, 257);
    assert.equal(HUFFMAN_LENGTHS.length, 257);
    assert.equal(EOS, 256);
    assert.equal(HUFFMAN_CODES[EOS], 0x3fffffff);
    assert.equal(HUFFMAN_LENGTHS[EOS], 30);
  });
  await t.step("spot checks from Appendix B", () => {
    const expected: [number, number, number][] = [
      [0, 0x1ff8, 13],
      [10, 0x3ffffffc, 30],
      [32, 0x14, 6],
      [48, 0x0, 5],
      [97, 0x3, 5],
      [255, 0x3ffffee, 26],
    ];
    for (const [sym, code, len] of expected) {
      assert.deepEqual([HUFFMAN_CODES[sym], HUFFMAN_LENGTHS[sym]], [code, len], `symbol ${sym}`);
    }
  });
  await t.step("each code fits its length and no code is a prefix of another", () => {
    for (let a = 0; a <= EOS; a++) {
      assert.ok(HUFFMAN_LENGTHS[a] >= 5 && HUFFMAN_LENGTHS[a] <= 30);
      assert.ok(HUFFMAN_CODES[a] < 2 ** HUFFMAN_LENGTHS[a]);
      for (let b = 0; b <= EOS; b++) {
        if (a === b || HUFFMAN_LENGTHS[a] > HUFFMAN_LENGTHS[b]) continue;
        const prefix = Math.floor(
          HUFFMAN_CODES[b] / 2 ** (HUFFMAN_LENGTHS[b] - HUFFMAN_LENGTHS[a]),
        );
        assert.notEqual(prefix, HUFFMAN_CODES[a], `code of ${a} is a prefix of that of ${b}`);
      }
    }
  });
  await t.step("Kraft equality: the sum of 2^-length is 1", () => {
    let sum = 0; // in units of 2^-30, exact in a double
    for (const len of HUFFMAN_LENGTHS) sum += 2 ** (30 - len);
    assert.equal(sum, 2 ** 30);
  });
  await t.step("canonical: codes count up in order of length, then symbol", () => {
    const order = Array.from({ length: 257 }, (_, s) => s)
      .sort((a, b) => HUFFMAN_LENGTHS[a] - HUFFMAN_LENGTHS[b] || a - b);
    let code = 0;
    for (let i = 1; i < order.length; i++) {
      code = (code + 1) * 2 ** (HUFFMAN_LENGTHS[order[i]] - HUFFMAN_LENGTHS[order[i - 1]]);
      assert.equal(HUFFMAN_CODES[order[i]], code, `symbol ${order[i]}`);
    }
  });
});

Deno.test("huffmanEncode() gives the strings of RFC 7541 C.4 and C.6", async (t) => {
  const cases: [string, string][] = [
    ["www.example.com", "f1e3 c2e5 f23a 6ba0 ab90 f4ff"],
    ["no-cache", "a8eb 1064 9cbf"],
    ["custom-key", "25a8 49e9 5ba9 7d7f"],
    ["custom-value", "25a8 49e9 5bb8 e8b4 bf"],
    ["302", "6402"],
    ["307", "640e ff"],
    ["private", "aec3 771a 4b"],
    [DATE_1, "d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff"],
    [DATE_2, "d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff"],
    ["https://www.example.com", "9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3"],
    ["gzip", "9bd9 ab"],
    [
      COOKIE,
      `94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5
       291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07`,
    ],
    ["", ""],
  ];
  for (const [s, expected] of cases) {
    await t.step(JSON.stringify(s), () => {
      assert.equal(toHex(huffmanEncode(s)), toHex(hex(expected)));
      assert.equal(huffmanEncodedLength(s), hex(expected).length);
      assert.equal(huffmanDecode(hex(expected)), s);
    });
  }
});

Deno.test("huffmanDecode() round-trips every octet", async (t) => {
  const octets = Array.from({ length: 256 }, (_, i) => i);
  await t.step("all 256 in one string, both orders", () => {
    for (const s of [octets, octets.toReversed()].map((o) => String.fromCharCode(...o))) {
      const encoded = huffmanEncode(s);
      assert.equal(encoded.length, huffmanEncodedLength(s));
      assert.equal(huffmanDecode(encoded), s);
    }
  });
  await t.step("each alone, and repeated to every padding length", () => {
    for (const c of octets) {
      for (let n = 1; n <= 8; n++) {
        const s = String.fromCharCode(c).repeat(n);
        assert.equal(huffmanDecode(huffmanEncode(s)), s, `octet ${c} × ${n}`);
      }
    }
  });
  await t.step("random strings, long ones past the reused buffer", () => {
    let seed = 1;
    const random = () => String.fromCharCode((seed = (seed * 48271) % 0x7fffffff) % 256);
    for (const length of [0, 1, 7, 100, 5000, 70000]) {
      const s = Array.from({ length }, random).join("");
      assert.equal(huffmanDecode(huffmanEncode(s)), s, `length ${length}`);
    }
  });
  await t.step("refuses bad padding and EOS", () => {
    for (const bad of ["ff", "1fff", "18", "1e", "ffffffff", "1fffffffff"]) {
      assert.throws(() => huffmanDecode(hex(bad)), HpackError, bad);
    }
  });
});
