"""Tests against a real ``switchboard serve``.

tests/sdk (Go) runs them with the stack's address in SB_URL and the rest of
the environment below; they are skipped when SB_URL is not set.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import queue
import secrets
import threading
import unittest
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Tuple

from switchboard import Switchboard, SwitchboardError, WebhookVerificationError, verify_webhook


def env(name: str) -> str:
    v = os.environ.get(name, "")
    if not v:
        raise AssertionError(f"{name} is not set")
    return v


@unittest.skipUnless(os.environ.get("SB_URL"), "SB_URL is not set (tests/sdk sets it)")
class LiveTest(unittest.TestCase):
    sb: Switchboard

    @classmethod
    def setUpClass(cls) -> None:
        cls.sb = Switchboard(env("SB_KEY"), env("SB_URL"))

    def assert_code(self, code: str, fn: Any, *args: Any, **kw: Any) -> SwitchboardError:
        with self.assertRaises(SwitchboardError) as cm:
            fn(*args, **kw)
        self.assertEqual(cm.exception.code, code, str(cm.exception))
        return cm.exception

    def test_catalog_connections_execute_and_typed_errors(self) -> None:
        sb = self.sb
        page = sb.list_connectors(query="fake task tracker")
        self.assertIn(env("SB_CONNECTOR"), [c["id"] for c in page["data"]])
        self.assertEqual(len(sb.list_tools(connector_id=env("SB_CONNECTOR"))["data"]), 3)

        acct = sb.create_connection(env("SB_CONNECTOR"), {"type": "api_key", "apiKey": env("SB_PROVIDER_KEY")}, user_id="py-user")
        self.assertEqual(acct["status"], "active")
        self.assert_code("CONFLICT", sb.create_connection, env("SB_CONNECTOR"), {"type": "api_key", "apiKey": "x"}, user_id="py-user", name="default")

        task = sb.execute_tool(env("SB_TOOL_CREATE"), {"title": "from Python"}, user_id="py-user")
        self.assertEqual(task["title"], "from Python")
        self.assert_code("MISSING_CONNECTION", sb.execute_tool, env("SB_TOOL_GET"), {"id": task["id"]}, user_id="nobody")
        self.assert_code("UNAUTHORIZED", Switchboard("sb_" + "0" * 64, env("SB_URL")).list_triggers)
        err = self.assert_code("VALIDATION_ERROR", sb.create_connect_link, "py-user", expires_in_minutes=1)
        self.assertTrue(err.issues)

        link = sb.create_connect_link("py-user", connectors=[env("SB_CONNECTOR")])
        self.assertTrue(link["url"].startswith(env("SB_URL") + "/connect/"), link["url"])
        self.assertEqual([c["name"] for c in sb.list_connections("py-user")], ["default"])
        self.assertTrue(sb.delete_connection(acct["id"])["erased"])

    def test_session_tools_in_openai_shapes_called(self) -> None:
        sb = self.sb
        sb.create_connection(env("SB_CONNECTOR"), {"type": "api_key", "apiKey": env("SB_PROVIDER_KEY")}, user_id="py-agent")
        created = sb.create_session("py-agent", connectors=[env("SB_CONNECTOR")])
        self.assertEqual(created["actionCount"], 3)
        session = sb.session(created["id"])
        chat = session.openai_chat_tools()
        execute = [t for t in chat if t["function"]["name"] == "switchboard_execute"]
        self.assertTrue(execute and execute[0]["function"].get("strict") is True)
        self.assertEqual([t["name"] for t in session.openai_responses_tools()], [t["function"]["name"] for t in chat])

        made = session.call("switchboard_execute", {"action": env("SB_TOOL_CREATE"), "input": {"title": "via a session"}})
        self.assertTrue(made.get("ok"), made)
        text = session.call_for_model("switchboard_execute", json.dumps({"action": env("SB_TOOL_GET"), "input": {"id": made["result"]["id"]}}))
        self.assertIn("via a session", text)
        refused = session.call("switchboard_execute", {"action": "github_get_issue", "input": {}})
        self.assertFalse(refused.get("ok"))
        self.assert_code("TOOL_NOT_FOUND", session.call, "no_such_tool")
        self.assert_code("SESSION_NOT_FOUND", sb.get_session, "00000000-0000-4000-8000-000000000000")

    def test_trigger_fired_delivery_verifies(self) -> None:
        sb = self.sb
        got: "queue.Queue[Tuple[Dict[str, str], bytes]]" = queue.Queue()

        class Receiver(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                got.put(({k: v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)

        hook = sb.create_webhook(f"http://127.0.0.1:{server.server_address[1]}/hook", description="python")
        self.assertTrue(hook["secret"].startswith("whsec_"))
        gh = sb.create_connection("github", {"type": "api_key", "apiKey": "ghp_py"}, user_id="py-hooks", auth_config=env("SB_GITHUB_AUTH"))
        trig = sb.create_trigger(gh["id"], "github_issue_opened", secret="gh-secret", config={"owner": "acme", "repo": "app"})
        event = json.dumps({"action": "opened", "issue": {"number": 7, "title": "from Python"}}).encode()
        req = urllib.request.Request(
            trig["url"],
            data=event,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "X-GitHub-Event": "issues",
                "X-GitHub-Delivery": secrets.token_hex(8),
                "X-Hub-Signature-256": "sha256=" + hmac.new(b"gh-secret", event, hashlib.sha256).hexdigest(),
            },
        )
        with urllib.request.urlopen(req, timeout=30) as resp:
            self.assertEqual(resp.status, 200)
        headers, body = got.get(timeout=30)
        ev = verify_webhook(hook["secret"], headers, body)
        self.assertEqual(ev["type"], "trigger.fired")
        self.assertEqual(ev["data"]["triggerId"], trig["id"])
        self.assertEqual(ev["data"]["userId"], "py-hooks")
        self.assertEqual(ev["data"]["payload"]["issue"]["title"], "from Python")
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(hook["secret"], headers, body.replace(b"from Python", b"from Pythom"))
        sb.delete_trigger(trig["id"])
        sb.delete_webhook(hook["id"])


if __name__ == "__main__":
    unittest.main()
