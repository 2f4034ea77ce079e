// A real OpenID provider for the single sign-on tests: panva's oidc-provider
// (OpenID Certified), on loopback, with one confidential client and the users
// of a JSON file the test rewrites (their groups change between sign-ins).
//
//   node provider.mjs --port P --state FILE --redirect URI --post-logout URI
//                     [--backchannel URI]
//
// FILE: {"users": {"<sub>": {"email", "name", "preferred_username", "groups": [],
//                            "disabled": false}},
//        "tamper": null | "nonce" | "issuer" | "signature"}
// It is read again on every account lookup and token response, so a test
// changes a user's groups, or has the next ID token re-signed with a wrong
// nonce or another issuer (with this provider's own key: only the claim is
// wrong), or signed by a key that is not the provider's (under its key id),
// without restarting the provider.
//
// Refresh tokens are issued to the client (the dashboard revalidates with them):
// a user marked "disabled" is unknown to the provider, so their refresh is
// refused with invalid_grant (and a sign-in too); a refresh's ID token and
// userinfo carry the user's groups as the file says then. With --backchannel,
// a sign-out at the provider POSTs a logout token there (Back-Channel Logout 1.0).
//
// Sign-in uses the library's development interactions (any password is
// accepted; the login name is the subject). Consent is granted up front.

import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { parseArgs } from "node:util";

import { SignJWT, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK } from "jose";
import Provider from "oidc-provider";

const { values: args } = parseArgs({
  options: {
    port: { type: "string" },
    state: { type: "string" },
    redirect: { type: "string" },
    "post-logout": { type: "string" },
    backchannel: { type: "string" },
    "client-id": { type: "string", default: "hermes-ui" },
    "client-secret": { type: "string", default: "hermes-ui-test-secret" },
  },
});

const HOST = "127.0.0.1";
const issuer = `http://${HOST}:${args.port}`;
const readState = () => JSON.parse(readFileSync(args.state, "utf8"));

const { privateKey } = await generateKeyPair("RS256", { extractable: true });
const signingJwk = { ...(await exportJWK(privateKey)), kid: "test-key", alg: "RS256", use: "sig" };
const signingKey = await importJWK(signingJwk, "RS256");
const { privateKey: strangerKey } = await generateKeyPair("RS256");

const escape = (text) =>
  String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: args["client-id"],
      client_secret: args["client-secret"],
      redirect_uris: [args.redirect],
      post_logout_redirect_uris: [args["post-logout"]],
      response_types: ["code"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "client_secret_basic",
      ...(args.backchannel
        ? { backchannel_logout_uri: args.backchannel, backchannel_logout_session_required: true }
        : {}),
    },
  ],
  // oidc-provider drops a requested offline_access unless the request also says
  // prompt=consent (OpenID Connect Core 11); consent is granted up front here
  // (loadExistingGrant), so the client gets its refresh token either way, as
  // Keycloak, Okta and Entra ID give one to a client allowed the grant.
  issueRefreshToken: async (ctx, client) => client.grantTypeAllowed("refresh_token"),
  // Every client must send a PKCE challenge (S256), confidential or not.
  pkce: { required: () => true },
  jwks: { keys: [signingJwk] },
  cookies: { keys: ["hermes-ui-oidc-test-cookie-key"] },
  scopes: ["openid", "offline_access", "email", "profile", "groups"],
  claims: {
    openid: ["sub"],
    email: ["email", "email_verified"],
    profile: ["name", "preferred_username"],
    groups: ["groups"],
  },
  // Scope claims in the ID token too, as Keycloak and Entra ID put them there.
  conformIdTokenClaims: false,
  features: {
    devInteractions: { enabled: true },
    backchannelLogout: { enabled: true },
    rpInitiatedLogout: {
      enabled: true,
      // The library's page loads a web font; this one is self-contained.
      logoutSource: async (ctx, form) => {
        ctx.body = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Sign out</title></head>
<body><h1>Sign out of the test provider?</h1>${form}
<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button></body></html>`;
      },
      postLogoutSuccessSource: async (ctx) => {
        ctx.body = "<!DOCTYPE html><html><body><h1>Signed out</h1></body></html>";
      },
    },
  },
  async findAccount(ctx, sub) {
    const user = readState().users[sub];
    // A disabled account does not exist for the provider: a refresh gets invalid_grant.
    if (!user || user.disabled) return undefined;
    return {
      accountId: sub,
      async claims() {
        const current = readState().users[sub] || {};
        return {
          sub,
          email: current.email,
          email_verified: true,
          name: current.name,
          preferred_username: current.preferred_username,
          groups: current.groups || [],
        };
      },
    };
  },
  // Consent is not what these tests are about: grant the client's scopes at once.
  async loadExistingGrant(ctx) {
    const grantId =
      ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) {
      const grant = await ctx.oidc.provider.Grant.find(grantId);
      if (grant) return grant;
    }
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope("openid offline_access email profile groups");
    await grant.save();
    return grant;
  },
  renderError: async (ctx, out) => {
    ctx.type = "html";
    ctx.body = `<!DOCTYPE html><html><body><h1>Provider error</h1><pre>${escape(
      JSON.stringify(out),
    )}</pre></body></html>`;
  },
});

// The test's lever on the next ID token: re-signed with this provider's key,
// with one claim a relying party must refuse.
provider.use(async (ctx, next) => {
  await next();
  if (ctx.path !== "/token" || ctx.status !== 200 || !ctx.body?.id_token) return;
  const tamper = readState().tamper;
  if (!tamper) return;
  const claims = decodeJwt(ctx.body.id_token);
  if (tamper === "nonce") claims.nonce = "not-the-nonce-you-sent";
  if (tamper === "issuer") claims.iss = `http://${HOST}:1/another-issuer`;
  const header = decodeProtectedHeader(ctx.body.id_token);
  ctx.body = {
    ...ctx.body,
    id_token: await new SignJWT(claims)
      .setProtectedHeader(header)
      .sign(tamper === "signature" ? strangerKey : signingKey),
  };
});

// Not provider.listen(): that binds every interface; the tests stay on loopback.
createServer(provider.callback()).listen(Number(args.port), HOST, () => {
  console.log(`oidc-provider listening on ${issuer}`);
});
