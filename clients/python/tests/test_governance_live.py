"""Policies, approvals, quotas and redaction against a real ``switchboard serve``.

tests/sdk (Go) runs them with the stack's address in SB_URL; they are skipped
when SB_URL is not set.
"""

from __future__ import annotations

import os
import threading
import time
import unittest

from switchboard import ApprovalRequired, ApprovalWaitError, Switchboard, SwitchboardError

from .test_live import env


@unittest.skipUnless(os.environ.get("SB_URL"), "SB_URL is not set (tests/sdk sets it)")
class GovernanceLiveTest(unittest.TestCase):
    def test_held_calls_approvals_denials_quotas_and_redaction(self) -> None:
        sb = Switchboard(env("SB_KEY"), env("SB_URL"), max_retry_after=1.0)
        tool = env("SB_TOOL_CREATE")
        sb.create_connection(env("SB_CONNECTOR"), {"type": "api_key", "apiKey": env("SB_PROVIDER_KEY")}, user_id="py-gov")
        ask = sb.create_policy(
            "ask",
            description="titles a person checks",
            match={"tool": tool, "arguments": [{"path": "title", "in": ["py needs approval", "py deny me", "py deny me too"]}]},
        )
        self.assertEqual(ask["level"], "project")
        deny = sb.create_policy("deny", match={"tool": tool, "arguments": [{"path": "title", "regexp": "^py forbidden"}]})
        with self.assertRaises(SwitchboardError) as bad:
            sb.create_policy("maybe")  # type: ignore[arg-type]
        self.assertEqual(bad.exception.code, "VALIDATION_ERROR")
        self.assertTrue(bad.exception.issues)
        listed = sb.list_policies()
        self.assertEqual([r["id"] for r in listed["data"]], [ask["id"], deny["id"]])
        self.assertEqual(listed["defaultDecision"], "allow")

        # Held, then approved while the helper waits.
        with self.assertRaises(ApprovalRequired) as held:
            sb.execute_tool(tool, {"title": "py needs approval"}, user_id="py-gov")
        approval = held.exception.approval
        self.assertEqual(held.exception.approval_id, approval["id"])
        self.assertEqual(approval["status"], "pending")
        self.assertTrue(approval["url"].endswith("/v1/approvals/" + approval["id"]))
        pending = sb.list_approvals(status="pending", tool_id=tool)
        self.assertEqual([a["id"] for a in pending["data"]], [approval["id"]])
        timer = threading.Timer(0.4, sb.approve_approval, (approval["id"],), {"approver": "python test"})
        timer.start()
        self.addCleanup(timer.cancel)
        task = sb.execute_tool_with_approval(tool, {"title": "py needs approval"}, user_id="py-gov", timeout=30, interval=0.1)
        self.assertEqual(task["title"], "py needs approval")
        used = sb.get_approval(approval["id"])
        self.assertEqual(used["status"], "used")
        self.assertIn("python test", used.get("decidedBy", ""))

        # Denied: the server's APPROVAL_DENIED, and the helper's.
        with self.assertRaises(ApprovalRequired) as held:
            sb.execute_tool(tool, {"title": "py deny me"}, user_id="py-gov")
        sb.deny_approval(held.exception.approval_id)
        with self.assertRaises(SwitchboardError) as denied:
            sb.execute_tool(tool, {"title": "py deny me"}, user_id="py-gov")
        self.assertEqual((denied.exception.status, denied.exception.code), (403, "APPROVAL_DENIED"))
        with self.assertRaises(SwitchboardError) as conflict:
            sb.approve_approval(held.exception.approval_id)
        self.assertEqual(conflict.exception.code, "CONFLICT")
        with self.assertRaises(ApprovalRequired) as held:
            sb.execute_tool(tool, {"title": "py deny me too"}, user_id="py-gov")
        timer = threading.Timer(0.3, sb.deny_approval, (held.exception.approval_id,))
        timer.start()
        self.addCleanup(timer.cancel)
        with self.assertRaises(SwitchboardError) as denied:
            sb.execute_tool_with_approval(tool, {"title": "py deny me too"}, user_id="py-gov", interval=0.1)
        self.assertEqual((denied.exception.status, denied.exception.code), (403, "APPROVAL_DENIED"))

        # A pending approval the wait gives up on.
        with self.assertRaises(ApprovalRequired) as held:
            sb.execute_tool(tool, {"title": "py needs approval"}, user_id="py-gov")
        began = time.monotonic()
        with self.assertRaises(ApprovalWaitError) as waited:
            sb.wait_for_approval(held.exception.approval_id, timeout=0.3, interval=0.1)
        self.assertEqual(waited.exception.reason, "timeout")
        self.assertEqual(waited.exception.approval["status"], "pending")
        self.assertLess(time.monotonic() - began, 5)

        with self.assertRaises(SwitchboardError) as forbidden:
            sb.execute_tool(tool, {"title": "py forbidden: drop it"}, user_id="py-gov")
        self.assertEqual((forbidden.exception.status, forbidden.exception.code), (403, "POLICY_DENIED"))

        # A quota: two calls a day, then 429 RATE_LIMITED with Retry-After,
        # raised at once (longer than the client's longest wait).
        quota = sb.create_quota("day", 2, user_id="py-gov", tool_id=tool)
        self.assertEqual((quota["limit"], quota["userId"]), (2, "py-gov"))
        for _ in range(2):
            sb.execute_tool(tool, {"title": "py counted"}, user_id="py-gov")
        began = time.monotonic()
        with self.assertRaises(SwitchboardError) as limited:
            sb.execute_tool(tool, {"title": "py counted"}, user_id="py-gov")
        self.assertEqual((limited.exception.status, limited.exception.code), (429, "RATE_LIMITED"))
        self.assertIsNotNone(limited.exception.retry_after)
        self.assertGreaterEqual(limited.exception.retry_after or 0, 1)
        self.assertLess(time.monotonic() - began, 5)
        self.assertEqual(sb.update_quota(quota["id"], "day", 10)["limit"], 10)
        self.assertEqual([q["id"] for q in sb.list_quotas()], [quota["id"]])
        self.assertEqual(sb.get_quota(quota["id"])["window"], "day")
        sb.delete_quota(quota["id"])

        # Redaction of direct calls' answers.
        rules = sb.set_redaction(detectors=["email"], rest_execute=True)
        self.assertTrue(rules["enabled"])
        task = sb.execute_tool(tool, {"title": "py mail jane@example.com"}, user_id="py-gov")
        self.assertEqual(task["title"], "py mail [redacted:email]")
        self.assertFalse(sb.delete_redaction()["enabled"])
        self.assertFalse(sb.get_redaction()["enabled"])

        for rule in (ask, deny):
            sb.delete_policy(rule["id"])
        self.assertEqual(sb.set_policy_default("allow"), "allow")


if __name__ == "__main__":
    unittest.main()
