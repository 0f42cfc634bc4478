// Tests that need no server: retries, errors and webhook verification.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";

import {
  isRetryable,
  isSwitchboardError,
  parseRetryAfter,
  Switchboard,
  SwitchboardError,
  toOpenAIChatTools,
  verifyWebhook,
  WebhookVerificationError,
  type SessionTool,
} from "../src/index.js";

interface Step { status: number; body?: string; headers?: Record<string, string> }

/** A server answering with the steps in order (the last repeats); returns its URL and the requests it saw. */
async function scripted(steps: Step[]): Promise<{ url: string; seen: string[]; close: () => void }> {
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
    const step = steps[Math.min(seen.length - 1, steps.length - 1)]!;
    res.writeHead(step.status, { "Content-Type": "application/json", ...step.headers });
    res.end(step.body ?? "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() };
}

const ok = { status: 200, body: '{"data":{"id":"tasks","name":"Tasks","category":"crm","authMethods":[],"toolIds":[]}}' };

test("429 is retried after the Retry-After wait, then succeeds", async () => {
  const srv = await scripted([{ status: 429, headers: { "Retry-After": "2" }, body: "" }, ok]);
  const waits: number[] = [];
  const sb = new Switchboard({ apiKey: "sb_k", baseUrl: srv.url + "/", sleep: async (ms) => void waits.push(ms) });
  const c = await sb.getConnector("tasks");
  srv.close();
  assert.equal(c.id, "tasks");
  assert.deepEqual(waits, [2000]);
  assert.deepEqual(srv.seen, ["GET /v1/connectors/tasks Bearer sb_k", "GET /v1/connectors/tasks Bearer sb_k"]);
});

test("a POST gets no retry after a 502, and the error is typed by code", async () => {
  const srv = await scripted([{ status: 502, body: '{"error":{"code":"UPSTREAM_ERROR","message":"provider failed","upstream":{"status":500,"body":"x"}}}' }, ok]);
  const sb = new Switchboard({ apiKey: "sb_k", baseUrl: srv.url, sleep: async () => {} });
  const err = await sb.executeTool({ toolId: "t" }).catch((e: unknown) => e);
  srv.close();
  assert.ok(isSwitchboardError(err, "UPSTREAM_ERROR"), String(err));
  assert.equal(err.status, 502);
  assert.equal(err.upstream?.status, 500);
  assert.equal(srv.seen.length, 1);
});

test("503 is retried up to maxRetries with growing backoff, then thrown", async () => {
  const srv = await scripted([{ status: 503, body: '{"error":{"code":"CREDENTIAL_UNAVAILABLE","message":"later"}}' }]);
  const waits: number[] = [];
  const sb = new Switchboard({ apiKey: "sb_k", baseUrl: srv.url, maxRetries: 3, initialBackoffMs: 100, sleep: async (ms) => void waits.push(ms) });
  const err = await sb.createSession({ userId: "u" }).catch((e: unknown) => e);
  srv.close();
  assert.ok(isSwitchboardError(err, "CREDENTIAL_UNAVAILABLE"));
  assert.equal(srv.seen.length, 4);
  assert.equal(waits.length, 3);
  waits.forEach((w, i) => assert.ok(w >= 50 * 2 ** i && w <= 100 * 2 ** i, `wait ${i}: ${w}`));
});

test("a provider's 429 is retried after its Retry-After, unless that is too long", async () => {
  const limited = { status: 400, headers: { "Retry-After": "4" }, body: '{"error":{"code":"EXECUTION_ERROR","message":"rate limited","upstream":{"status":429,"body":""}}}' };
  let srv = await scripted([limited, { status: 200, body: '{"data":{"id":"t1"}}' }]);
  const waits: number[] = [];
  const sb = (url: string) => new Switchboard({ apiKey: "sb_k", baseUrl: url, sleep: async (ms) => void waits.push(ms) });
  assert.deepEqual(await sb(srv.url).executeTool({ toolId: "t" }), { id: "t1" });
  srv.close();
  assert.deepEqual(waits, [4000]);
  srv = await scripted([{ ...limited, headers: { "Retry-After": "3600" } }]);
  const err = await sb(srv.url).executeTool({ toolId: "t" }).catch((e: unknown) => e);
  srv.close();
  assert.ok(isSwitchboardError(err, "EXECUTION_ERROR"));
  assert.equal(srv.seen.length, 1);
});

test("a validation error carries its issues; an answer without an envelope keeps its status", async () => {
  const srv = await scripted([
    { status: 400, body: '{"error":{"code":"VALIDATION_ERROR","message":"bad","issues":[{"code":"too_small","path":["ttlMinutes"],"message":"at least 5"}]}}' },
    { status: 404, body: "<html>no</html>" },
  ]);
  const sb = new Switchboard({ apiKey: "sb_k", baseUrl: srv.url });
  const e1 = await sb.createSession({ userId: "u", ttlMinutes: 1 }).catch((e: unknown) => e);
  const e2 = await sb.createSession({ userId: "u" }).catch((e: unknown) => e);
  srv.close();
  assert.ok(isSwitchboardError(e1, "VALIDATION_ERROR"));
  assert.deepEqual(e1.issues[0]?.path, ["ttlMinutes"]);
  assert.ok(e2 instanceof SwitchboardError && e2.status === 404 && e2.code === undefined);
});

test("retry rules and Retry-After parsing", () => {
  assert.ok(isRetryable("POST", 429) && isRetryable("POST", 503) && isRetryable("GET", 500) && isRetryable("DELETE", 502));
  assert.ok(isRetryable("POST", 400, 429) && !isRetryable("POST", 400, 500));
  assert.ok(!isRetryable("POST", 500) && !isRetryable("PATCH", 502) && !isRetryable("GET", 404));
  const now = Date.parse("2026-05-04T09:00:00Z");
  assert.equal(parseRetryAfter("7", now), 7000);
  assert.equal(parseRetryAfter("Mon, 04 May 2026 09:00:10 GMT", now), 10000);
  assert.equal(parseRetryAfter("soon", now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
});

test("OpenAI chat tools keep the strict flag", () => {
  const tools: SessionTool[] = [
    { kind: "meta", name: "switchboard_execute", description: "Run", inputSchema: { type: "object" }, annotations: { readOnlyHint: false, destructiveHint: false }, strict: true },
  ];
  assert.deepEqual(toOpenAIChatTools(tools), [
    { type: "function", function: { name: "switchboard_execute", description: "Run", parameters: { type: "object" }, strict: true } },
  ]);
});

test("verifyWebhook accepts the exact signed delivery and nothing else", async () => {
  const key = Buffer.from("a webhook signing key of 32 byte");
  const secret = "whsec_" + key.toString("base64");
  const body = '{"type":"trigger.fired","id":"e1","timestamp":"2026-05-04T09:30:00Z","data":{"triggerId":"t","connectionId":"c","connectorId":"github","userId":null,"event":"github_issue_opened","payload":{}}}';
  const ts = 1_780_000_000;
  const sig = "v1," + createHmac("sha256", key).update(`msg_1.${ts}.${body}`).digest("base64");
  const headers = { "webhook-id": "msg_1", "webhook-timestamp": String(ts), "webhook-signature": "v1,bm9wZQ== " + sig };
  const now = ts * 1000 + 60_000;
  const ev = await verifyWebhook(secret, headers, body, { now });
  assert.equal(ev.type, "trigger.fired");
  assert.equal(ev.data.userId, null);
  assert.ok(await verifyWebhook(secret, new Headers(headers), new TextEncoder().encode(body), { now }));
  const bad: [string, Record<string, string>, string, number][] = [
    ["body changed", headers, body.replace("t", "T"), now],
    ["other id", { ...headers, "webhook-id": "msg_2" }, body, now],
    ["too old", headers, body, ts * 1000 + 301_000],
    ["no signature", { ...headers, "webhook-signature": "" }, body, now],
    ["other version", { ...headers, "webhook-signature": sig.replace("v1,", "v2,") }, body, now],
  ];
  for (const [name, h, b, at] of bad) {
    await assert.rejects(verifyWebhook(secret, h, b, { now: at }), WebhookVerificationError, name);
  }
});
