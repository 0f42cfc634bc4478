"""Errors raised by the client."""

from __future__ import annotations

import json
from typing import Any, List, Optional, cast

from ._types import Choice, ErrorCode, Issue


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
    ) -> None:
        super().__init__(f"{status} {code or ''}: {message}".replace("  ", " "))
        self.status = status
        self.code = code
        self.message = message
        self.issues: List[Issue] = issues or []
        self.choices: List[Choice] = choices or []
        self.upstream = upstream


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
