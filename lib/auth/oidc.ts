import type { OIDCConfig } from "next-auth/providers";
import { config } from "../config/index.ts";

// OpenID Connect sign-in with any provider (Keycloak, Authentik, Entra ID, Okta, ...) configured by
// OIDC_ISSUER / OIDC_CLIENT_ID / OIDC_CLIENT_SECRET (lib/config). Finding, linking or creating the
// user is the same rule as for GitHub / Google (lib/auth/oauth.ts), with the provider's
// `email_verified` claim as its word on the address.

/** The Auth.js provider id: the callback URL to register with the provider is APP_URL/api/auth/callback/oidc. */
export const OIDC_PROVIDER_ID = "oidc";

/** The Auth.js provider for the configured issuer, or null when OpenID Connect is not configured. */
export function oidcProvider(): OIDCConfig<Record<string, unknown>> | null {
  const oidc = config().oidc;
  if (!oidc) return null;
  return {
    id: OIDC_PROVIDER_ID,
    name: oidc.name,
    type: "oidc",
    // endpoints come from the issuer's discovery document (/.well-known/openid-configuration)
    issuer: oidc.issuer,
    clientId: oidc.clientId,
    clientSecret: oidc.clientSecret,
    authorization: { params: { scope: "openid email profile" } },
    // PKCE binds the code to this browser, state the answer to the sign-in it started (no login
    // CSRF), nonce the ID token to it.
    checks: ["pkce", "state", "nonce"],
    // The claims come from the userinfo endpoint (its `sub` checked against the ID token's): many
    // providers put email and email_verified only there when an access token is issued
    // (OpenID Connect Core §5.4), so an ID token without them is not read as "no address".
    idToken: false,
    // The identity is the issuer and `sub` together, the only stable identifier OpenID Connect
    // gives (Core §5.7): another issuer configured later may hand out the same `sub` to someone
    // else. The issuer has no fragment (lib/config), so "#" separates the two.
    profile: (claims) => ({
      id: `${oidc.issuer}#${String(claims.sub)}`,
      name:
        typeof claims.name === "string" ? claims.name : typeof claims.preferred_username === "string" ? claims.preferred_username : null,
      email: typeof claims.email === "string" ? claims.email : null,
    }),
  };
}

/** The button's name for the configured provider (OIDC_NAME). */
export function oidcProviderName(): string | null {
  return config().oidc?.name ?? null;
}
