import assert from "node:assert/strict";
import { loadTokenFile, parseTokenFile } from "../../../../apiserver/auth/authn/token_file.ts";

Deno.test("parseTokenFile() reads tokens, users, uids and quoted group lists", async (t) => {
  const cases: {
    name: string;
    text: string;
    want: { token: string; username: string; uid: string; groups: string[] }[];
    warnings?: number;
  }[] = [
    {
      name: "three columns",
      text: "tok1,alice,1\n",
      want: [{ token: "tok1", username: "alice", uid: "1", groups: [] }],
    },
    {
      name: "quoted groups column",
      text: 'tok2,bob,2,"dev, ops,qa"\r\n',
      want: [{ token: "tok2", username: "bob", uid: "2", groups: ["dev", "ops", "qa"] }],
    },
    {
      name: "single unquoted group and blank lines",
      text: "\ntok3,carol,3,admins\n\n",
      want: [{ token: "tok3", username: "carol", uid: "3", groups: ["admins"] }],
    },
    {
      name: "empty token skipped with a warning",
      text: ",nobody,0\ntok4,dan,4",
      want: [{ token: "tok4", username: "dan", uid: "4", groups: [] }],
      warnings: 1,
    },
    {
      name: "repeated token warns, both kept in order (the later wins)",
      text: "tok5,erin,5\ntok5,frank,6\n",
      want: [
        { token: "tok5", username: "erin", uid: "5", groups: [] },
        { token: "tok5", username: "frank", uid: "6", groups: [] },
      ],
      warnings: 1,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const got = parseTokenFile(c.text);
      assert.deepEqual(
        got.tokens.map((e) => ({ token: e.token, ...e.user })),
        c.want,
      );
      assert.equal(got.warnings.length, c.warnings ?? 0);
    });
  }
});

Deno.test("parseTokenFile() rejects malformed files without echoing the token", async (t) => {
  const cases: { name: string; text: string; message: RegExp }[] = [
    { name: "two columns", text: "secret-token,alice\n", message: /line 1 must have at least 3/ },
    { name: "unterminated quote", text: 'tok,bob,2,"dev\n', message: /unterminated quoted field/ },
    { name: "bare quote", text: 'to"k,bob,2\n', message: /bare quote/ },
    { name: "empty user", text: "secret-token,,2\n", message: /line 1 has an empty user name/ },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assert.throws(() => parseTokenFile(c.text, "tokens.csv"), (err: Error) => {
        assert.match(err.message, c.message);
        assert.ok(!err.message.includes("secret-token"));
        return true;
      });
    });
  }
});

Deno.test("loadTokenFile() reads a file and names it in errors", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/tokens.csv`;
    await Deno.writeTextFile(path, 'abc,alice,1,"g1,g2"\n');
    const f = await loadTokenFile(path);
    assert.deepEqual(f.tokens[0].user.groups, ["g1", "g2"]);
    await assert.rejects(loadTokenFile(`${dir}/missing.csv`), /--token-auth-file: cannot read/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
