"""Verification of signed trigger.fired deliveries (Standard Webhooks)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Mapping, Optional, Union, cast

from ._errors import WebhookVerificationError
from ._types import TriggerFiredEvent


def _header(headers: Mapping[str, str], name: str) -> str:
    for k, v in headers.items():
        if k.lower() == name:
            return v
    return ""


def verify_webhook(
    secret: str,
    headers: Mapping[str, str],
    body: Union[bytes, str],
    tolerance: int = 300,
    now: Optional[float] = None,
) -> TriggerFiredEvent:
    """Verifies a delivery and returns its trigger.fired event.

    ``secret`` is the endpoint's whsec_ secret; ``headers`` the request's
    headers (any mapping; names are matched without regard to case); ``body``
    the raw body exactly as received: re-encoded JSON does not verify. The
    webhook-timestamp must be within ``tolerance`` seconds of ``now``.
    Raises WebhookVerificationError when the delivery is not proven genuine.
    """
    try:
        key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ValueError("verify_webhook: the secret is not whsec_ followed by base64") from e
    msg_id = _header(headers, "webhook-id")
    ts = _header(headers, "webhook-timestamp")
    sigs = _header(headers, "webhook-signature")
    if not msg_id or not ts or not sigs:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    if not ts.isdigit():
        raise WebhookVerificationError("webhook-timestamp is not a number")
    current = time.time() if now is None else now
    if abs(current - int(ts)) > tolerance:
        raise WebhookVerificationError("webhook-timestamp is too far from now")
    raw = body.encode() if isinstance(body, str) else body
    want = hmac.new(key, msg_id.encode() + b"." + ts.encode() + b"." + raw, hashlib.sha256).digest()
    for sig in sigs.split():
        version, _, b64 = sig.partition(",")
        if version != "v1":
            continue
        try:
            got = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            continue
        if hmac.compare_digest(got, want):
            return cast(TriggerFiredEvent, json.loads(raw))
    raise WebhookVerificationError("no signature matches")
