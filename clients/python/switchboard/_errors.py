"""Errors raised by the client."""

from __future__ import annotations

import json
from typing import Any, List, Optional, cast

from ._types import Approval, Choice, ErrorCode, Issue


class SwitchboardError(Exception):
    """A failed API call.

    ``code`` is the API's error code; it is None only when the answer carried
    no error envelope (a proxy's page, an empty 405). Branch on ``code``,
    never on ``message``.
    """

    def __init__(
        self,
        status: int,
        code: Optional[ErrorCode],
        message: str,
        issues: Optional[List[Issue]] = None,
        choices: Optional[List[Choice]] = None,
        upstream: Optional[Any] = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(f"{status} {code or ''}: {message}".replace("  ", " "))
        self.status = status
        self.code = code
        self.message = message
        self.issues: List[Issue] = issues or []
        self.choices: List[Choice] = choices or []
        self.upstream = upstream
        # The answer's Retry-After in seconds, when it had one: with
        # RATE_LIMITED, the time until the quota's window ends; with a
        # provider's 429, the provider's wait.
        self.retry_after = retry_after


class ApprovalRequired(Exception):
    """A call a policy's ask rule held for approval (HTTP 202): nothing ran.

    ``approval`` is the held call's approval. Once a person approves it, the
    same call made again (same tool, user and input) runs once;
    ``Switchboard.wait_for_approval`` waits for the decision and
    ``execute_tool_with_approval`` / ``proxy_with_approval`` do all of it.
    """

    def __init__(self, approval: Approval) -> None:
        super().__init__(
            f"the call waits for approval {approval.get('id')} (until {approval.get('expiresAt')}); "
            "wait with wait_for_approval, then make the same call again"
        )
        self.approval = approval
        self.approval_id: str = approval["id"]
        self.url: str = approval.get("url", "")
        self.expires_at: str = approval.get("expiresAt", "")


class ApprovalWaitError(Exception):
    """An approval waited on did not let the call run.

    ``reason`` is ``"timeout"`` (still pending when the wait's timeout
    passed), ``"expired"`` (no decision before it expired) or ``"used"``
    (another call spent it). ``approval`` is its last state seen.
    """

    def __init__(self, approval: Approval, reason: str) -> None:
        if reason == "timeout":
            msg = f"approval {approval.get('id')} is still pending after the wait's timeout"
        else:
            msg = f"approval {approval.get('id')} is {approval.get('status')}; the call did not run"
        super().__init__(msg)
        self.approval = approval
        self.reason = reason


class WebhookVerificationError(Exception):
    """A webhook delivery that is not proven to come from Switchboard; answer it 400 or 401."""


def error_from_response(status: int, reason: str, text: str) -> SwitchboardError:
    """Builds the error for a failed answer from its status and body text."""
    try:
        env = json.loads(text)
    except ValueError:
        env = None
    if isinstance(env, dict) and isinstance(env.get("error"), dict) and isinstance(env["error"].get("code"), str):
        e = env["error"]
        return SwitchboardError(
            status,
            cast(ErrorCode, e["code"]),
            str(e.get("message", e["code"])),
            e.get("issues"),
            e.get("choices"),
            e.get("upstream"),
        )
    return SwitchboardError(status, None, f"HTTP {status} {reason}".strip())
