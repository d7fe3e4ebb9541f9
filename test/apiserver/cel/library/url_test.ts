import { table } from "./helpers.ts";

Deno.test("registerURLLibrary() parses URLs and exposes their parts", async (t) => {
  const u = "url('https://user@example.com:8443/a%20b/c?x=1&x=2&y=%20z')";
  await table(t, [
    { expr: "isURL('https://example.com')", want: true },
    { expr: "isURL('/absolute/path')", want: true },
    { expr: "isURL('relative/path')", want: false },
    { expr: "isURL('https://exa mple.com')", want: false },
    { expr: "isURL('https://example.com:80a')", want: false },
    { expr: "isURL('')", want: false },
    { expr: `${u}.getScheme()`, want: "https" },
    { expr: `${u}.getHost()`, want: "example.com:8443" },
    { expr: `${u}.getHostname()`, want: "example.com" },
    { expr: `${u}.getPort()`, want: "8443" },
    { expr: `${u}.getEscapedPath()`, want: "/a%20b/c" },
    { expr: `${u}.getQuery()['x']`, want: ["1", "2"] },
    { expr: `${u}.getQuery()['y']`, want: [" z"] },
    { expr: "url('https://[::1]:80/').getHostname()", want: "::1" },
    { expr: "url('https://[::1]:80/').getHost()", want: "[::1]:80" },
    { expr: "url('https://example.com').getPort()", want: "" },
    { expr: "url('/p').getHost()", want: "" },
    { expr: "url('https://a/') == url('https://a/')", want: true },
    { expr: "url('not a url')", error: "URL parse error" },
    { expr: "url('https://example.com/%zz')", error: "URL parse error" },
  ]);
});
