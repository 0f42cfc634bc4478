// Tests against a real `switchboard serve`, run by tests/sdk (Go) with the
// stack's address in SB_URL and the rest of the environment below; skipped
// when SB_URL is not set.
import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";

import { isSwitchboardError, Switchboard, verifyWebhook, WebhookVerificationError } from "../src/index.js";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const live = { skip: process.env.SB_URL ? false : "SB_URL is not set (tests/sdk sets it)" };

test("catalog, connections, execute and typed errors", live, async () => {
  const sb = new Switchboard({ apiKey: env("SB_KEY"), baseUrl: env("SB_URL") });
  const page = await sb.listConnectors({ query: "fake task tracker" });
  assert.ok(page.data.some((c) => c.id === env("SB_CONNECTOR")));
  const tools = await sb.listTools({ connectorId: env("SB_CONNECTOR") });
  assert.equal(tools.data.length, 3);

  const acct = await sb.createConnection({ connectorId: env("SB_CONNECTOR"), userId: "ts-user", credential: { type: "api_key", apiKey: env("SB_PROVIDER_KEY") } });
  assert.equal(acct.status, "active");
  const dup = await sb.createConnection({ connectorId: env("SB_CONNECTOR"), userId: "ts-user", name: "default", credential: { type: "api_key", apiKey: "x" } }).catch((e: unknown) => e);
  assert.ok(isSwitchboardError(dup, "CONFLICT"), String(dup));

  const task = (await sb.executeTool({ toolId: env("SB_TOOL_CREATE"), userId: "ts-user", input: { title: "from TypeScript" } })) as { id: string; title: string };
  assert.equal(task.title, "from TypeScript");
  const missing = await sb.executeTool({ toolId: env("SB_TOOL_GET"), userId: "nobody", input: { id: task.id } }).catch((e: unknown) => e);
  assert.ok(isSwitchboardError(missing, "MISSING_CONNECTION"), String(missing));
  const wrongKey = await new Switchboard({ apiKey: "sb_" + "0".repeat(64), baseUrl: env("SB_URL") }).listTriggers().catch((e: unknown) => e);
  assert.ok(isSwitchboardError(wrongKey, "UNAUTHORIZED"));
  const tooShort = await sb.createConnectLink({ userId: "ts-user", expiresInMinutes: 1 }).catch((e: unknown) => e);
  assert.ok(isSwitchboardError(tooShort, "VALIDATION_ERROR") && tooShort.issues.length > 0);

  const link = await sb.createConnectLink({ userId: "ts-user", connectors: [env("SB_CONNECTOR")] });
  assert.ok(link.url.startsWith(env("SB_URL") + "/connect/"), link.url);
  const conns = await sb.listConnections("ts-user");
  assert.deepEqual(conns.map((c) => c.name), ["default"]);
  assert.equal((await sb.deleteConnection(acct.id)).erased, true);
});

test("a session's tools in OpenAI and Vercel AI SDK shapes, called", live, async () => {
  const sb = new Switchboard({ apiKey: env("SB_KEY"), baseUrl: env("SB_URL") });
  await sb.createConnection({ connectorId: env("SB_CONNECTOR"), userId: "ts-agent", credential: { type: "api_key", apiKey: env("SB_PROVIDER_KEY") } });
  const created = await sb.createSession({ userId: "ts-agent", connectors: [env("SB_CONNECTOR")] });
  assert.equal(created.actionCount, 3);
  const session = sb.session(created.id);

  const chat = await session.openAIChatTools();
  const execute = chat.find((t) => t.function.name === "switchboard_execute");
  assert.equal(execute?.function.strict, true);
  const responses = await session.openAIResponsesTools();
  assert.deepEqual(responses.map((t) => t.name), chat.map((t) => t.function.name));

  const wrapped: Record<string, unknown>[] = [];
  const vercel = await session.vercelAITools((schema) => {
    wrapped.push(schema);
    return { jsonSchema: schema };
  });
  assert.equal(wrapped.length, Object.keys(vercel).length);
  const made = (await vercel.switchboard_execute!.execute({ action: env("SB_TOOL_CREATE"), input: { title: "via Vercel shape" } })) as { id: string };
  assert.ok(made.id);

  const text = await session.callForModel("switchboard_execute", JSON.stringify({ action: env("SB_TOOL_GET"), input: { id: made.id } }));
  assert.ok(text.includes("via Vercel shape"), text);
  const refused = await session.call("switchboard_execute", { action: "github_get_issue", input: {} });
  assert.equal(refused.ok, false);
  const unknown = await session.call("no_such_tool").catch((e: unknown) => e);
  assert.ok(isSwitchboardError(unknown, "TOOL_NOT_FOUND"));
  const gone = await sb.getSession("00000000-0000-4000-8000-000000000000").catch((e: unknown) => e);
  assert.ok(isSwitchboardError(gone, "SESSION_NOT_FOUND"));
});

test("a trigger.fired delivery verifies with verifyWebhook", live, async () => {
  const sb = new Switchboard({ apiKey: env("SB_KEY"), baseUrl: env("SB_URL") });
  const deliveries: { headers: IncomingHttpHeaders; body: Buffer }[] = [];
  let arrived: () => void = () => {};
  const first = new Promise<void>((resolve) => (arrived = resolve));
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(204).end();
      arrived();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const hook = await sb.createWebhook({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` });
    assert.ok(hook.secret.startsWith("whsec_"));
    const gh = await sb.createConnection({ connectorId: "github", userId: "ts-hooks", authConfig: env("SB_GITHUB_AUTH"), credential: { type: "api_key", apiKey: "ghp_ts" } });
    const trig = await sb.createTrigger({ connectionId: gh.id, event: "github_issue_opened", secret: "gh-secret", config: { owner: "acme", repo: "app" } });
    assert.ok(trig.url);
    const event = JSON.stringify({ action: "opened", issue: { number: 7, title: "from TypeScript" } });
    const res = await fetch(trig.url, {
      method: "POST",
      body: event,
      headers: {
        "Content-Type": "application/json",
        "X-GitHub-Event": "issues",
        "X-GitHub-Delivery": randomBytes(8).toString("hex"),
        "X-Hub-Signature-256": "sha256=" + createHmac("sha256", "gh-secret").update(event).digest("hex"),
      },
    });
    assert.equal(res.status, 200);
    await Promise.race([first, new Promise((_, reject) => setTimeout(() => reject(new Error("no delivery in 30s")), 30_000))]);
    const d = deliveries[0]!;
    const ev = await verifyWebhook(hook.secret, d.headers, d.body);
    assert.equal(ev.type, "trigger.fired");
    assert.equal(ev.data.triggerId, trig.id);
    assert.equal(ev.data.userId, "ts-hooks");
    assert.deepEqual((ev.data.payload as { issue: { title: string } }).issue.title, "from TypeScript");
    await assert.rejects(verifyWebhook(hook.secret, d.headers, d.body.toString().replace("TypeScript", "TypeScripT")), WebhookVerificationError);
    await sb.deleteTrigger(trig.id);
    await sb.deleteWebhook(hook.id);
  } finally {
    receiver.close();
  }
});
