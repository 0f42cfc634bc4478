"""Tests that need no server: retries, errors, types and webhook verification."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import typing
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Tuple

from switchboard import (
    ApprovalRequired,
    ApprovalWaitError,
    ErrorCode,
    Switchboard,
    SwitchboardError,
    WebhookVerificationError,
    is_retryable,
    parse_retry_after,
    to_openai_chat_tools,
    verify_webhook,
)
from switchboard._types import SessionTool

Step = Tuple[int, Dict[str, str], str]
OK: Step = (200, {}, '{"data":{"id":"tasks","name":"Tasks"}}')


class Scripted:
    """A local server answering with the steps in order (the last repeats)."""

    def __init__(self, steps: List[Step]) -> None:
        self.seen: List[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                outer.seen.append(f"{self.command} {self.path} {self.headers.get('Authorization')}")
                status, headers, body = steps[min(len(outer.seen), len(steps)) - 1]
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body.encode())

            do_GET = do_POST = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class RetryTest(unittest.TestCase):
    def client(self, srv: Scripted, waits: List[float], **kw: Any) -> Switchboard:
        return Switchboard("sb_k", srv.url + "/", sleep=waits.append, **kw)

    def test_429_waits_as_retry_after_says_then_succeeds(self) -> None:
        srv = Scripted([(429, {"Retry-After": "2"}, ""), OK])
        self.addCleanup(srv.close)
        waits: List[float] = []
        got = self.client(srv, waits).get_connector("tasks")
        self.assertEqual(got["id"], "tasks")
        self.assertEqual(waits, [2.0])
        self.assertEqual(srv.seen, ["GET /v1/connectors/tasks Bearer sb_k"] * 2)

    def test_post_is_not_retried_after_502_and_the_error_is_typed(self) -> None:
        srv = Scripted([(502, {}, '{"error":{"code":"UPSTREAM_ERROR","message":"provider failed","upstream":{"status":500,"body":"x"}}}'), OK])
        self.addCleanup(srv.close)
        waits: List[float] = []
        with self.assertRaises(SwitchboardError) as cm:
            self.client(srv, waits).execute_tool("t")
        self.assertEqual((cm.exception.status, cm.exception.code), (502, "UPSTREAM_ERROR"))
        self.assertEqual(cm.exception.upstream, {"status": 500, "body": "x"})
        self.assertEqual(len(srv.seen), 1)

    def test_503_is_retried_with_growing_backoff_then_raised(self) -> None:
        srv = Scripted([(503, {}, '{"error":{"code":"CREDENTIAL_UNAVAILABLE","message":"later"}}')])
        self.addCleanup(srv.close)
        waits: List[float] = []
        with self.assertRaises(SwitchboardError) as cm:
            self.client(srv, waits, max_retries=3, initial_backoff=0.1).create_session("u")
        self.assertEqual(cm.exception.code, "CREDENTIAL_UNAVAILABLE")
        self.assertEqual(len(srv.seen), 4)
        self.assertEqual(len(waits), 3)
        for i, w in enumerate(waits):
            self.assertTrue(0.05 * 2**i <= w <= 0.1 * 2**i, f"wait {i}: {w}")

    def test_a_provider_429_is_retried_unless_the_wait_is_too_long(self) -> None:
        limited: Step = (400, {"Retry-After": "4"}, '{"error":{"code":"EXECUTION_ERROR","message":"rate limited","upstream":{"status":429,"body":""}}}')
        srv = Scripted([limited, (200, {}, '{"data":{"id":"t1"}}')])
        self.addCleanup(srv.close)
        waits: List[float] = []
        self.assertEqual(self.client(srv, waits).execute_tool("t"), {"id": "t1"})
        self.assertEqual(waits, [4.0])
        srv2 = Scripted([(400, {"Retry-After": "3600"}, limited[2])])
        self.addCleanup(srv2.close)
        with self.assertRaises(SwitchboardError) as cm:
            self.client(srv2, waits).execute_tool("t")
        self.assertEqual(cm.exception.code, "EXECUTION_ERROR")
        self.assertEqual(len(srv2.seen), 1)

    def test_rate_limited_retries_within_its_bound_and_carries_retry_after(self) -> None:
        body = '{"error":{"code":"RATE_LIMITED","message":"the limit of 5 calls per minute is reached; try again in 30 seconds"}}'
        srv = Scripted([(429, {"Retry-After": "30"}, body)])
        self.addCleanup(srv.close)
        waits: List[float] = []
        with self.assertRaises(SwitchboardError) as cm:
            self.client(srv, waits).execute_tool("t")
        self.assertEqual((cm.exception.status, cm.exception.code, cm.exception.retry_after), (429, "RATE_LIMITED", 30.0))
        self.assertEqual((len(srv.seen), waits), (3, [30.0, 30.0]))
        srv2 = Scripted([(429, {"Retry-After": "1200"}, body)])
        self.addCleanup(srv2.close)
        waits = []
        with self.assertRaises(SwitchboardError) as cm:
            self.client(srv2, waits).execute_tool("t")
        self.assertEqual((cm.exception.code, cm.exception.retry_after, len(srv2.seen), waits), ("RATE_LIMITED", 1200.0, 1, []))

    def test_a_held_call_raises_approval_required_and_the_helper_runs_it_once_approved(self) -> None:
        def approval(status: str) -> str:
            return json.dumps(
                {"data": {"id": "a1", "status": status, "url": "http://x/v1/approvals/a1", "connectorId": "tasks", "userId": "u",
                          "input": {}, "decidedAt": None, "usedAt": None, "createdAt": "2026-01-01T00:00:00Z", "expiresAt": "2999-01-01T00:00:00Z"}}
            )

        held: Step = (202, {}, approval("pending"))
        srv = Scripted([held])
        self.addCleanup(srv.close)
        waits: List[float] = []
        with self.assertRaises(ApprovalRequired) as cm:
            self.client(srv, waits).execute_tool("t", {"n": 1}, user_id="u")
        self.assertEqual((cm.exception.approval_id, cm.exception.approval["status"]), ("a1", "pending"))
        with self.assertRaises(ApprovalRequired):
            self.client(srv, waits).proxy("tasks", "u", "/x")

        srv2 = Scripted([held, (200, {}, approval("pending")), (200, {}, approval("pending")), (200, {}, approval("approved")), (200, {}, '{"data":{"done":true}}')])
        self.addCleanup(srv2.close)
        got = self.client(srv2, waits).execute_tool_with_approval("t", {"n": 1}, user_id="u", interval=1.0)
        self.assertEqual(got, {"done": True})
        self.assertEqual([s.split()[0] + " " + s.split()[1] for s in srv2.seen],
                         ["POST /v1/tools/execute"] + ["GET /v1/approvals/a1"] * 3 + ["POST /v1/tools/execute"])
        self.assertEqual(waits, [1.0, 1.5])

        srv3 = Scripted([held, (200, {}, approval("denied"))])
        self.addCleanup(srv3.close)
        with self.assertRaises(SwitchboardError) as denied:
            self.client(srv3, waits).execute_tool_with_approval("t", {"n": 1}, user_id="u")
        self.assertEqual((denied.exception.status, denied.exception.code, len(srv3.seen)), (403, "APPROVAL_DENIED", 2))
        srv4 = Scripted([held, (200, {}, approval("expired"))])
        self.addCleanup(srv4.close)
        with self.assertRaises(ApprovalWaitError) as expired:
            self.client(srv4, waits).execute_tool_with_approval("t", {"n": 1}, user_id="u")
        self.assertEqual(expired.exception.reason, "expired")

    def test_validation_issues_and_answers_without_envelope(self) -> None:
        srv = Scripted(
            [
                (400, {}, '{"error":{"code":"VALIDATION_ERROR","message":"bad","issues":[{"code":"too_small","path":["ttlMinutes"],"message":"at least 5"}]}}'),
                (404, {}, "<html>no</html>"),
            ]
        )
        self.addCleanup(srv.close)
        sb = Switchboard("sb_k", srv.url)
        with self.assertRaises(SwitchboardError) as cm:
            sb.create_session("u", ttl_minutes=1)
        self.assertEqual(cm.exception.code, "VALIDATION_ERROR")
        self.assertEqual(cm.exception.issues[0]["path"], ["ttlMinutes"])
        with self.assertRaises(SwitchboardError) as cm:
            sb.create_session("u")
        self.assertEqual((cm.exception.status, cm.exception.code), (404, None))

    def test_rules(self) -> None:
        self.assertTrue(is_retryable("POST", 429) and is_retryable("POST", 503) and is_retryable("GET", 500) and is_retryable("DELETE", 502))
        self.assertTrue(is_retryable("POST", 400, 429) and not is_retryable("POST", 400, 500))
        self.assertFalse(is_retryable("POST", 500) or is_retryable("PATCH", 502) or is_retryable("GET", 404))
        now = 1777885200.0  # 2026-05-04T09:00:00Z
        self.assertEqual(parse_retry_after("7", now), 7.0)
        self.assertEqual(parse_retry_after("Mon, 04 May 2026 09:00:10 GMT", now), 10.0)
        self.assertIsNone(parse_retry_after("soon", now))
        self.assertIsNone(parse_retry_after(None, now))


class ShapeTest(unittest.TestCase):
    def test_error_codes_equal_the_openapi_enum(self) -> None:
        doc = json.loads((Path(__file__).resolve().parents[3] / "internal" / "httpapi" / "openapi.json").read_text())
        want = sorted(doc["components"]["schemas"]["ErrorCode"]["enum"])
        self.assertGreaterEqual(len(want), 20)
        self.assertEqual(sorted(typing.get_args(ErrorCode)), want)

    def test_openai_chat_tools_keep_strict(self) -> None:
        tools: List[SessionTool] = [
            {"kind": "meta", "name": "switchboard_execute", "description": "Run", "inputSchema": {"type": "object"}, "annotations": {}, "strict": True}
        ]
        self.assertEqual(
            to_openai_chat_tools(tools),
            [{"type": "function", "function": {"name": "switchboard_execute", "description": "Run", "parameters": {"type": "object"}, "strict": True}}],
        )


class WebhookTest(unittest.TestCase):
    def test_only_the_exact_signed_delivery_verifies(self) -> None:
        key = b"a webhook signing key of 32 byte"
        secret = "whsec_" + base64.b64encode(key).decode()
        body = '{"type":"trigger.fired","id":"e1","timestamp":"2026-05-04T09:30:00Z","data":{"triggerId":"t","connectionId":"c","connectorId":"github","userId":null,"event":"github_issue_opened","payload":{}}}'
        ts = 1780000000
        sig = "v1," + base64.b64encode(hmac.new(key, f"msg_1.{ts}.{body}".encode(), hashlib.sha256).digest()).decode()
        headers = {"Webhook-Id": "msg_1", "Webhook-Timestamp": str(ts), "Webhook-Signature": "v1,bm9wZQ== " + sig}
        now = ts + 60
        ev = verify_webhook(secret, headers, body.encode(), now=now)
        self.assertEqual(ev["type"], "trigger.fired")
        self.assertIsNone(ev["data"]["userId"])
        bad = {
            "body changed": (headers, body.replace("t", "T", 1), now),
            "other id": ({**headers, "Webhook-Id": "msg_2"}, body, now),
            "too old": (headers, body, ts + 301),
            "no signature": ({**headers, "Webhook-Signature": ""}, body, now),
            "other version": ({**headers, "Webhook-Signature": sig.replace("v1,", "v2,")}, body, now),
        }
        for name, (h, b, at) in bad.items():
            with self.subTest(name), self.assertRaises(WebhookVerificationError):
                verify_webhook(secret, h, b, now=at)


if __name__ == "__main__":
    unittest.main()
