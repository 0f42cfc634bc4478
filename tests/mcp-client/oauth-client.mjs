// Signs in to a Switchboard MCP endpoint with OAuth sign-in using the
// official TypeScript MCP SDK client's OAuth support (discovery, dynamic
// client registration, PKCE, resource indicator), then lists the tools and
// calls the ones in SB_CALLS. The browser's part (authorize, the project's
// handoff, the consent page) is done here by following the redirects with a
// cookie jar, as a browser would. Prints one JSON document; exits non-zero
// on any failure.
//
//   SB_URL=<mcp url> SB_CALLS='[…]' node oauth-client.mjs
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const url = new URL(process.env.SB_URL);
const calls = JSON.parse(process.env.SB_CALLS || "[]");
const redirectUrl = "http://127.0.0.1:1/callback";

// An in-memory OAuthClientProvider.
const state = {};
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return { client_name: "TS SDK test client", redirect_uris: [redirectUrl], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none" };
  },
  clientInformation() { return state.client; },
  saveClientInformation(c) { state.client = c; },
  tokens() { return state.tokens; },
  saveTokens(t) { state.tokens = t; },
  redirectToAuthorization(u) { state.authorizationUrl = u; },
  saveCodeVerifier(v) { state.verifier = v; },
  codeVerifier() { return state.verifier; },
};

// browse follows redirects from start like a browser with a cookie jar,
// submitting the consent form's approve button, until it reaches the
// client's redirect URI; it returns that URL.
async function browse(start) {
  const jar = new Map();
  const seen = [];
  let next = { url: start, method: "GET" };
  for (let i = 0; i < 12; i++) {
    const u = new URL(next.url);
    if (u.href.startsWith(redirectUrl)) return { final: u, seen };
    const headers = {};
    const cookies = [...jar.entries()].map(([k, v]) => `${k}=${v}`).join("; ");
    if (cookies && u.origin === url.origin) headers.Cookie = cookies;
    if (next.body) headers["Content-Type"] = "application/x-www-form-urlencoded";
    const res = await fetch(u, { method: next.method, headers, body: next.body, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const [k, v] = pair.split("=");
      if (v) jar.set(k, v); else jar.delete(k);
    }
    seen.push(`${next.method} ${u.pathname} ${res.status}`);
    if (res.status >= 300 && res.status < 400) {
      next = { url: new URL(res.headers.get("location"), u).href, method: "GET" };
      continue;
    }
    const html = await res.text();
    if (res.status === 200 && u.pathname.startsWith("/oauth/consent/")) {
      state.consent = html;
      next = { url: u.href, method: "POST", body: "decision=approve" };
      continue;
    }
    throw new Error(`unexpected ${res.status} at ${u.pathname}: ${html.slice(0, 300)}`);
  }
  throw new Error("too many redirects");
}

try {
  let transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  let client = new Client({ name: "switchboard-ts-oauth-test", version: "1.0.0" });
  let unauthorized = false;
  try {
    await client.connect(transport);
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
    unauthorized = true;
  }
  if (!unauthorized || !state.authorizationUrl) throw new Error("the client was not sent to sign in");
  const authorize = state.authorizationUrl;
  const { final, seen } = await browse(authorize.href);
  const code = final.searchParams.get("code");
  if (!code) throw new Error(`no code: ${final}`);
  await transport.finishAuth(code);

  transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  client = new Client({ name: "switchboard-ts-oauth-test", version: "1.0.0" });
  await client.connect(transport);
  const listed = await client.listTools();
  const results = [];
  for (const call of calls) {
    const res = await client.callTool({ name: call.name, arguments: call.arguments });
    results.push({ name: call.name, isError: Boolean(res.isError), text: res.content?.[0]?.text ?? "" });
  }
  console.log(JSON.stringify({
    clientId: state.client?.client_id ?? "",
    authorize: { resource: authorize.searchParams.get("resource"), method: authorize.searchParams.get("code_challenge_method") },
    browser: seen,
    consentShowsClient: (state.consent ?? "").includes("TS SDK test client"),
    tokenPrefix: (state.tokens?.access_token ?? "").slice(0, 5),
    hasRefresh: Boolean(state.tokens?.refresh_token),
    tools: listed.tools.map((t) => t.name),
    results,
  }));
  await client.close();
} catch (err) {
  console.error(String(err?.stack || err));
  process.exit(1);
}
