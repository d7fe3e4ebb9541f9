/**
 * Bearer tokens known to the server: the generated admin token and the `--token-auth-file`
 * entries; plus the two fallbacks at the end of the chain (reject an unknown bearer token,
 * answer a request without credentials as anonymous).
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";
import {
  ANONYMOUS_USER,
  type Authenticator,
  type AuthResult,
  bearerToken,
  constantTimeEqual,
  UNAUTHENTICATED_GROUP,
} from "./authenticator.ts";

/** One static token and the user it stands for. */
export interface StaticToken {
  token: string;
  user: UserInfo;
}

function digest(token: string): string {
  return createHash("sha256").update(token).digest("base64");
}

/**
 * Authenticates bearer tokens from a fixed table. Tokens are looked up by their SHA-256 (so the
 * lookup time says nothing about the token) and then compared in constant time.
 */
export class StaticTokenAuthenticator implements Authenticator {
  readonly name: string;
  readonly #tokens = new Map<string, StaticToken>();

  /** Later entries with the same token replace earlier ones. */
  constructor(tokens: StaticToken[], name = "token") {
    this.name = name;
    for (const t of tokens) this.#tokens.set(digest(t.token), t);
  }

  /** How many distinct tokens are known. */
  get size(): number {
    return this.#tokens.size;
  }

  authenticate(req: Request): Promise<AuthResult> {
    const token = bearerToken(req);
    if (token === undefined) return Promise.resolve({ kind: "none" });
    const found = this.#tokens.get(digest(token));
    if (found && constantTimeEqual(found.token, token)) {
      return Promise.resolve({
        kind: "user",
        user: structuredClone(found.user),
        method: this.name,
      });
    }
    // Unknown bearer tokens may belong to a later authenticator (service accounts, webhook).
    return Promise.resolve({ kind: "none" });
  }
}

/** Rejects any bearer token no earlier authenticator accepted. */
export class RejectUnknownBearer implements Authenticator {
  readonly name = "bearer";
  authenticate(req: Request): Promise<AuthResult> {
    return Promise.resolve(
      bearerToken(req) !== undefined || req.headers.has("authorization")
        ? { kind: "invalid", method: "token", reason: "invalid bearer token" }
        : { kind: "none" },
    );
  }
}

/**
 * Answers every request without credentials as system:anonymous; with `paths` (the
 * authentication configuration's `anonymous.conditions`), only requests for those paths.
 */
export class AnonymousAuthenticator implements Authenticator {
  readonly name = "anonymous";
  constructor(readonly paths?: readonly string[]) {}
  authenticate(req?: Request): Promise<AuthResult> {
    if (this.paths?.length && req && !this.paths.includes(new URL(req.url).pathname)) {
      return Promise.resolve({ kind: "none" });
    }
    return Promise.resolve({
      kind: "user",
      method: this.name,
      user: { username: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] },
    });
  }
}
