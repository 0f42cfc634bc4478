// Policies, approvals, quotas and redaction against a real `switchboard
// serve` (tests/sdk sets SB_URL), and the approval helpers against a
// scripted server.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";

import { ApprovalRequiredError, ApprovalWaitError, isSwitchboardError, Switchboard } from "../src/index.js";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const live = { skip: process.env.SB_URL ? false : "SB_URL is not set (tests/sdk sets it)" };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test("held calls, approvals, denials, quotas and redaction", live, async () => {
  const sb = new Switchboard({ apiKey: env("SB_KEY"), baseUrl: env("SB_URL"), maxRetryAfterMs: 1000 });
  const toolId = env("SB_TOOL_CREATE");
  const userId = "ts-gov";
  await sb.createConnection({ connectorId: env("SB_CONNECTOR"), userId, credential: { type: "api_key", apiKey: env("SB_PROVIDER_KEY") } });
  const ask = await sb.createPolicy({
    decision: "ask",
    description: "titles a person checks",
    match: { tool: toolId, arguments: [{ path: "title", in: ["ts needs approval", "ts deny me", "ts deny me too"] }] },
  });
  assert.equal(ask.level, "project");
  const deny = await sb.createPolicy({ decision: "deny", match: { tool: toolId, arguments: [{ path: "title", regexp: "^ts forbidden" }] } });
  const bad = await sb.createPolicy({ decision: "maybe" as "deny" }).catch((e: unknown) => e);
  assert.ok(isSwitchboardError(bad, "VALIDATION_ERROR") && bad.issues.length > 0, String(bad));
  const listed = await sb.listPolicies();
  assert.deepEqual(listed.data.map((r) => r.id), [ask.id, deny.id]);
  assert.equal(listed.defaultDecision, "allow");

  // Held, then approved while the helper waits.
  const input = { title: "ts needs approval" };
  const held = await sb.executeTool({ toolId, userId, input }).catch((e: unknown) => e);
  assert.ok(held instanceof ApprovalRequiredError, String(held));
  assert.equal(held.approval.status, "pending");
  assert.ok(held.approval.url.endsWith("/v1/approvals/" + held.approvalId));
  const pending = await sb.listApprovals({ status: "pending", toolId });
  assert.deepEqual(pending.data.map((a) => a.id), [held.approvalId]);
  const approving = sleep(400).then(() => sb.approveApproval(held.approvalId, "ts test"));
  const task = (await sb.executeToolWithApproval({ toolId, userId, input }, { timeoutMs: 30_000, intervalMs: 100 })) as { title: string };
  await approving;
  assert.equal(task.title, "ts needs approval");
  const used = await sb.getApproval(held.approvalId);
  assert.equal(used.status, "used");
  assert.ok(used.decidedBy?.includes("ts test"), used.decidedBy);

  // Denied: the server's APPROVAL_DENIED, and the helper's.
  const denyMe = await sb.executeTool({ toolId, userId, input: { title: "ts deny me" } }).catch((e: unknown) => e);
  assert.ok(denyMe instanceof ApprovalRequiredError);
  await sb.denyApproval(denyMe.approvalId);
  const denied = await sb.executeTool({ toolId, userId, input: { title: "ts deny me" } }).catch((e: unknown) => e);
  assert.ok(isSwitchboardError(denied, "APPROVAL_DENIED") && denied.status === 403, String(denied));
  const conflict = await sb.approveApproval(denyMe.approvalId).catch((e: unknown) => e);
  assert.ok(isSwitchboardError(conflict, "CONFLICT"), String(conflict));
  const denyMeToo = await sb.executeTool({ toolId, userId, input: { title: "ts deny me too" } }).catch((e: unknown) => e);
  assert.ok(denyMeToo instanceof ApprovalRequiredError);
  const denying = sleep(300).then(() => sb.denyApproval(denyMeToo.approvalId));
  const deniedByHelper = await sb.executeToolWithApproval({ toolId, userId, input: { title: "ts deny me too" } }, { intervalMs: 100 }).catch((e: unknown) => e);
  await denying;
  assert.ok(isSwitchboardError(deniedByHelper, "APPROVAL_DENIED") && deniedByHelper.status === 403, String(deniedByHelper));

  // A pending approval the wait gives up on.
  const again = await sb.executeTool({ toolId, userId, input }).catch((e: unknown) => e);
  assert.ok(again instanceof ApprovalRequiredError);
  const began = Date.now();
  const timedOut = await sb.waitForApproval(again.approvalId, { timeoutMs: 300, intervalMs: 100 }).catch((e: unknown) => e);
  assert.ok(timedOut instanceof ApprovalWaitError && timedOut.reason === "timeout" && timedOut.approval.status === "pending", String(timedOut));
  assert.ok(Date.now() - began < 5000);

  const forbidden = await sb.executeTool({ toolId, userId, input: { title: "ts forbidden: drop it" } }).catch((e: unknown) => e);
  assert.ok(isSwitchboardError(forbidden, "POLICY_DENIED") && forbidden.status === 403, String(forbidden));

  // A quota: two calls a day, then 429 RATE_LIMITED with Retry-After,
  // thrown at once (longer than the client's longest wait).
  const quota = await sb.createQuota({ window: "day", limit: 2, userId, toolId });
  assert.equal(quota.userId, userId);
  for (let i = 0; i < 2; i++) await sb.executeTool({ toolId, userId, input: { title: "ts counted" } });
  const start = Date.now();
  const limited = await sb.executeTool({ toolId, userId, input: { title: "ts counted" } }).catch((e: unknown) => e);
  assert.ok(isSwitchboardError(limited, "RATE_LIMITED") && limited.status === 429, String(limited));
  assert.ok((limited.retryAfterMs ?? 0) >= 1000, String(limited.retryAfterMs));
  assert.ok(Date.now() - start < 5000);
  assert.equal((await sb.updateQuota(quota.id, { window: "day", limit: 10 })).limit, 10);
  assert.deepEqual((await sb.listQuotas()).map((q) => q.id), [quota.id]);
  assert.equal((await sb.getQuota(quota.id)).window, "day");
  await sb.deleteQuota(quota.id);

  // Redaction of direct calls' answers.
  assert.equal((await sb.setRedaction({ detectors: ["email"], restExecute: true })).enabled, true);
  const redacted = (await sb.executeTool({ toolId, userId, input: { title: "ts mail jane@example.com" } })) as { title: string };
  assert.equal(redacted.title, "ts mail [redacted:email]");
  assert.equal((await sb.deleteRedaction()).enabled, false);
  assert.equal((await sb.getRedaction()).enabled, false);

  for (const r of [ask, deny]) await sb.deletePolicy(r.id);
  assert.equal(await sb.setPolicyDefault("allow"), "allow");
});

/** A fake API: execute answers 202 with approval a1 until a poll saw it approved; polls answer statuses in order. */
async function approvalServer(statuses: string[]): Promise<{ url: string; seen: string[]; close: () => void }> {
  const seen: string[] = [];
  let polls = 0;
  let approved = false;
  const approval = (status: string): string =>
    JSON.stringify({
      data: { id: "a1", status, url: "http://x/v1/approvals/a1", connectorId: "tasks", userId: "u", input: {}, decidedAt: null, usedAt: null,
        createdAt: "2026-01-01T00:00:00Z", expiresAt: "2999-01-01T00:00:00Z" },
    });
  const server = createServer((req, res) => {
    seen.push(`${req.method ?? ""} ${req.url ?? ""}`);
    res.setHeader("Content-Type", "application/json");
    if (req.url === "/v1/approvals/a1") {
      const st = statuses[Math.min(polls++, statuses.length - 1)]!;
      approved = st === "approved";
      res.end(approval(st));
    } else if (approved) {
      res.end('{"data":{"done":true}}');
    } else {
      res.writeHead(202).end(approval("pending"));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() };
}

test("a 202 throws ApprovalRequiredError; the helper polls with backoff and runs the approved call", async () => {
  const srv = await approvalServer(["pending", "pending", "approved"]);
  const waits: number[] = [];
  const sb = new Switchboard({ apiKey: "sb_k", baseUrl: srv.url, sleep: async (ms) => void waits.push(ms) });
  const held = await sb.proxy({ connectorId: "tasks", userId: "u", endpoint: "/x" }).catch((e: unknown) => e);
  assert.ok(held instanceof ApprovalRequiredError && held.approvalId === "a1", String(held));
  srv.seen.length = 0;
  const out = await sb.executeToolWithApproval({ toolId: "t", userId: "u" }, { intervalMs: 1000 });
  srv.close();
  assert.deepEqual(out, { done: true });
  assert.deepEqual(srv.seen, ["POST /v1/tools/execute", "GET /v1/approvals/a1", "GET /v1/approvals/a1", "GET /v1/approvals/a1", "POST /v1/tools/execute"]);
  assert.deepEqual(waits, [1000, 1500]);
});

test("the helper throws APPROVAL_DENIED on a denial and ApprovalWaitError on an expiry", async () => {
  const srv = await approvalServer(["denied"]);
  const sb = new Switchboard({ apiKey: "sb_k", baseUrl: srv.url, sleep: async () => {} });
  const denied = await sb.executeToolWithApproval({ toolId: "t" }).catch((e: unknown) => e);
  srv.close();
  assert.ok(isSwitchboardError(denied, "APPROVAL_DENIED") && denied.status === 403, String(denied));
  assert.equal(srv.seen.length, 2);
  const srv2 = await approvalServer(["expired"]);
  const expired = await new Switchboard({ apiKey: "sb_k", baseUrl: srv2.url }).executeToolWithApproval({ toolId: "t" }).catch((e: unknown) => e);
  srv2.close();
  assert.ok(expired instanceof ApprovalWaitError && expired.reason === "expired", String(expired));
});

test("RATE_LIMITED is retried within the client's bound and carries Retry-After", async () => {
  const body = '{"error":{"code":"RATE_LIMITED","message":"the limit of 5 calls per minute is reached; try again in 30 seconds"}}';
  const make = async (after: string) => {
    const seen: number[] = [];
    const server = createServer((_req, res) => {
      seen.push(1);
      res.writeHead(429, { "Content-Type": "application/json", "Retry-After": after }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() };
  };
  const srv = await make("30");
  const waits: number[] = [];
  const err = await new Switchboard({ apiKey: "sb_k", baseUrl: srv.url, sleep: async (ms) => void waits.push(ms) }).executeTool({ toolId: "t" }).catch((e: unknown) => e);
  srv.close();
  assert.ok(isSwitchboardError(err, "RATE_LIMITED") && err.status === 429 && err.retryAfterMs === 30_000, String(err));
  assert.deepEqual([srv.seen.length, waits], [3, [30_000, 30_000]]);
  const srv2 = await make("1200");
  const waits2: number[] = [];
  const err2 = await new Switchboard({ apiKey: "sb_k", baseUrl: srv2.url, sleep: async (ms) => void waits2.push(ms) }).executeTool({ toolId: "t" }).catch((e: unknown) => e);
  srv2.close();
  assert.ok(isSwitchboardError(err2, "RATE_LIMITED") && err2.retryAfterMs === 1_200_000, String(err2));
  assert.deepEqual([srv2.seen.length, waits2], [1, []]);
});
