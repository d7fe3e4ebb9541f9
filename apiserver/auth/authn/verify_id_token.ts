/**
 * The checks of an ID token as go-oidc v2 (kube 1.32's verifier) makes them: the signature with
 * one of the accepted algorithms and the issuer's keys, `iss`, `aud` (any of the audiences),
 * `exp` (required, no leeway), `nbf` (one minute of leeway for clock skew) and `iat` (a number
 * when present; a future one is accepted). Failures come back in go-oidc's words, never with
 * the token.
 *
 * @module
 */
import { errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from "jose";

/** go-oidc's leeway for `nbf`, seconds. */
export const NBF_LEEWAY_SECONDS = 60;

/** What an ID token is checked against. */
export interface IdTokenChecks {
  issuer: string;
  audiences: string[];
  algorithms: readonly string[];
  /** The current time, ms. */
  now: number;
}

/** Verifies `token`; its claims, or an Error whose message says why not. */
export async function verifyIdToken(
  token: string,
  getKey: JWTVerifyGetKey,
  checks: IdTokenChecks,
): Promise<Record<string, unknown>> {
  try {
    const { payload } = await jwtVerify(token, getKey, {
      issuer: checks.issuer,
      audience: checks.audiences,
      algorithms: [...checks.algorithms],
      requiredClaims: ["exp"],
      currentDate: new Date(checks.now),
      clockTolerance: NBF_LEEWAY_SECONDS,
    });
    // The tolerance is meant for nbf only: exp is checked again without it.
    if (Number(payload.exp) * 1000 < checks.now) {
      throw new joseErrors.JWTExpired("expired", payload);
    }
    return payload;
  } catch (err) {
    throw new Error(describe(err));
  }
}

/** A verification failure in words (jose's codes; never the token). */
function describe(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return "oidc: token is expired";
  if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === "nbf") {
    return `oidc: current time before the nbf (not before) time: ${
      new Date(Number(err.payload.nbf) * 1000).toISOString()
    }`;
  }
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    return `oidc: ${err.claim} claim check failed: ${err.reason}`;
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
    return "failed to verify signature";
  }
  if (err instanceof joseErrors.JOSEAlgNotAllowed) {
    return "oidc: id token signed with unsupported algorithm";
  }
  if (err instanceof joseErrors.JWKSNoMatchingKey) return "failed to verify id token signature";
  return (err as Error).message;
}
