/**
 * A fake SubjectAccessReview webhook for tests: alice is allowed, mallory denied, users whose
 * name starts with `slow` are answered after 3 s, users whose name starts with `flaky` get a 500
 * for their first two reviews and are then allowed, everyone else gets no opinion. It records
 * the version and user of every review.
 *
 * @module
 */
import { serveHttps } from "../../shared/http/https_server.ts";
import { servingPki } from "./test_pki.ts";

/** A SubjectAccessReview service: alice allowed, mallory denied, slow* answer late. */
export async function startSarWebhook() {
  const { ca, serving } = await servingPki();
  const seen: { apiVersion: string; user: string }[] = [];
  const server = await serveHttps(async (req) => {
    const review = await req.json();
    const user = review.spec.user as string;
    seen.push({ apiVersion: review.apiVersion, user });
    if (user.startsWith("slow")) await new Promise((r) => setTimeout(r, 3000));
    const flaky = user.startsWith("flaky");
    if (flaky && seen.filter((s) => s.user === user).length <= 2) {
      return new Response("temporarily broken", { status: 500 });
    }
    const status = user === "alice" || flaky
      ? { allowed: true, reason: "alice may" }
      : user === "mallory"
      ? { allowed: false, denied: true, reason: "mallory may not" }
      : { allowed: false };
    return Response.json({ apiVersion: review.apiVersion, kind: "SubjectAccessReview", status });
  }, {
    hostname: "127.0.0.1",
    port: 0,
    certPem: serving.certPem,
    keyPem: serving.keyPem,
    requestClientCert: false,
    onError: () => {},
    onWarning: () => {},
  });
  return { server, caPem: ca.certPem, seen };
}
