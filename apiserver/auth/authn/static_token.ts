/** Bearer tokens known to the server: the admin credential (and, later, a token file). */
import type { UserInfo } from "../../registry/generic/admission.ts";
import {
  type Authenticator,
  type AuthResult,
  bearerToken,
  constantTimeEqual,
} from "./authenticator.ts";

/** Authenticates bearer tokens from a fixed table. */
export class StaticTokenAuthenticator implements Authenticator {
  readonly name = "token";
  readonly #tokens: { token: string; user: UserInfo }[];

  constructor(tokens: { token: string; user: UserInfo }[]) {
    this.#tokens = tokens;
  }

  authenticate(req: Request): Promise<AuthResult> {
    const token = bearerToken(req);
    if (token === undefined) return Promise.resolve({ kind: "none" });
    let found: UserInfo | undefined;
    for (const t of this.#tokens) if (constantTimeEqual(t.token, token)) found = t.user;
    return Promise.resolve(
      found
        ? { kind: "user", user: found, method: this.name }
        // Unknown bearer tokens may belong to a later authenticator (service accounts).
        : { kind: "none" },
    );
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

/** Answers every request without credentials as system:anonymous. */
export class AnonymousAuthenticator implements Authenticator {
  readonly name = "anonymous";
  authenticate(): Promise<AuthResult> {
    return Promise.resolve({
      kind: "user",
      method: this.name,
      user: { username: "system:anonymous", groups: ["system:unauthenticated"] },
    });
  }
}
