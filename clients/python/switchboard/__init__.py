"""A client of the Switchboard API, standard library only.

    from switchboard import Switchboard
    sb = Switchboard("sb_...", "http://localhost:8080")
    session = sb.create_session("user-42", connectors=["github"])
"""

from ._client import (
    DEFAULT_BASE_URL,
    SessionHandle,
    Switchboard,
    is_retryable,
    outcome_for_model,
    parse_retry_after,
    to_openai_chat_tools,
)
from ._errors import SwitchboardError, WebhookVerificationError
from ._types import (
    Choice,
    ConnectLink,
    Connection,
    Connector,
    ConnectorPage,
    ErrorCode,
    Issue,
    OpenAIChatTool,
    Policy,
    Refusal,
    Session,
    SessionTool,
    Tool,
    ToolFormat,
    ToolOutcome,
    ToolPage,
    Trigger,
    TriggerFiredEvent,
    Webhook,
)
from ._webhook import verify_webhook

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_BASE_URL",
    "Choice",
    "ConnectLink",
    "Connection",
    "Connector",
    "ConnectorPage",
    "ErrorCode",
    "Issue",
    "OpenAIChatTool",
    "Policy",
    "Refusal",
    "Session",
    "SessionHandle",
    "SessionTool",
    "Switchboard",
    "SwitchboardError",
    "Tool",
    "ToolFormat",
    "ToolOutcome",
    "ToolPage",
    "Trigger",
    "TriggerFiredEvent",
    "Webhook",
    "WebhookVerificationError",
    "is_retryable",
    "outcome_for_model",
    "parse_retry_after",
    "to_openai_chat_tools",
    "verify_webhook",
]
