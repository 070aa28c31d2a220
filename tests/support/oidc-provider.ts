import { generateKeyPairSync, randomBytes } from "node:crypto";
import http from "node:http";
import Provider from "oidc-provider";

// A real OpenID Connect provider (the `oidc-provider` package) on loopback, for the sign-in tests.
// One client is registered for the app's callback URL. Its login and consent are answered here
// without a form: the login signs in the account the test chose last (signInNextAs), the consent
// grants what the client asked for, as a user who clicks "Continue" would.

export type OidcAccount = { sub: string; email?: string; email_verified?: boolean; name?: string };

export type OidcProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next login at the provider signs in, with the claims it releases. */
  signInNextAs: (account: OidcAccount) => void;
  stop: () => Promise<void>;
};

export async function startOidcProvider(opts: { redirectUri: string }): Promise<OidcProvider> {
  const clientId = "linkhop-test";
  const clientSecret = randomBytes(24).toString("base64url");
  const accounts = new Map<string, OidcAccount>();
  let next: OidcAccount | null = null;

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  // A signing key of its own (oidc-provider's built-in development key says it is not for use).
  const signingKey = {
    ...generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" }),
    use: "sig",
    kid: "test",
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    // PKCE is what the app sends; without it the provider refuses the authorization request.
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx: unknown, sub: string) {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: async () => ({ ...account }) } : undefined;
    },
  });
  provider.on("server_error", (_ctx: unknown, error: Error) => console.error("[oidc-provider]", error));

  const callback = provider.callback();
  server.on("request", (req, res) => {
    if (!req.url?.startsWith("/interaction/")) return void callback(req, res);
    void interact(req, res).catch((e) => {
      console.error("[oidc-provider interaction]", e);
      if (!res.headersSent) res.writeHead(500).end(String(e));
    });
  });

  async function interact(req: http.IncomingMessage, res: http.ServerResponse) {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === "login") {
      if (!next) throw new Error("no account chosen for this login (signInNextAs)");
      accounts.set(next.sub, next);
      await provider.interactionFinished(req, res, { login: { accountId: next.sub } }, { mergeWithLastSubmission: false });
      return;
    }
    if (details.prompt.name === "consent") {
      const grant = details.grantId
        ? (await provider.Grant.find(details.grantId))!
        : new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
      return;
    }
    throw new Error(`unexpected prompt ${details.prompt.name}`);
  }

  return {
    issuer,
    clientId,
    clientSecret,
    signInNextAs: (account) => void (next = account),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
