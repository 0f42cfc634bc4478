"""Typed shapes of the API's JSON (internal/httpapi/openapi.json)."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict

ErrorCode = Literal[
    "VALIDATION_ERROR",
    "MISSING_CONNECTION",
    "REAUTH_REQUIRED",
    "CONNECTION_NOT_FOUND",
    "EXECUTION_ERROR",
    "UNAUTHORIZED",
    "FORBIDDEN",
    "ACTION_DISABLED",
    "FORBIDDEN_ENDPOINT",
    "POLICY_DENIED",
    "APPROVAL_DENIED",
    "NOT_FOUND",
    "TOOL_NOT_FOUND",
    "CONNECTOR_NOT_FOUND",
    "SESSION_NOT_FOUND",
    "AMBIGUOUS_CONNECTION",
    "CONFLICT",
    "NAME_TAKEN",
    "CONNECTOR_UNAVAILABLE",
    "LINK_USED",
    "LINK_EXPIRED",
    "INTERNAL_ERROR",
    "UPSTREAM_ERROR",
    "CREDENTIAL_UNAVAILABLE",
    "RATE_LIMITED",
]
"""An API error code; branch on it, never on the message."""

ToolFormat = Literal["json-schema", "openai-strict"]


class Issue(TypedDict):
    code: str
    path: List[Any]
    message: str


class Choice(TypedDict):
    id: str
    displayName: str


class AuthMethod(TypedDict):
    id: str
    type: str
    name: str


class Connector(TypedDict):
    id: str
    name: str
    description: str
    category: str
    logo: str
    authMethods: List[AuthMethod]
    mcp: bool


class ConnectorPage(TypedDict, total=False):
    data: List[Connector]
    nextCursor: Optional[str]
    facets: Dict[str, Dict[str, int]]


class _ToolRequired(TypedDict):
    id: str
    name: str
    description: str
    connectorId: str
    effect: str
    category: str
    dataClassification: str


class Tool(_ToolRequired, total=False):
    irreversible: bool
    requiredScopes: List[str]
    inputSchema: Dict[str, Any]
    outputSchema: Dict[str, Any]


class ToolPage(TypedDict, total=False):
    data: List[Tool]
    nextCursor: Optional[str]
    facets: Dict[str, Dict[str, int]]


# "global" is a Python keyword, hence the functional form.
Connection = TypedDict(
    "Connection",
    {
        "id": str,
        "connectorId": str,
        "authConfigId": str,
        "userId": Optional[str],
        "name": str,
        "label": Optional[str],
        "isDefault": bool,
        "status": str,
        "scopes": List[str],
        "lastUsedAt": Optional[str],
        "createdAt": str,
        "global": bool,
        "revision": Any,
    },
    total=False,
)


class Policy(TypedDict, total=False):
    readOnly: bool
    maxDataClass: str
    allowDisconnect: bool
    allowProxy: bool


class SessionConnector(TypedDict):
    id: str
    name: str
    actions: int
    connection: Dict[str, str]


class Session(TypedDict):
    id: str
    userId: str
    expiresAt: str
    scopeHash: str
    actionCount: int
    pinned: List[str]
    policy: Policy
    allowGlobalAccounts: bool
    connectors: List[SessionConnector]
    mcpUrl: str


class _SessionToolRequired(TypedDict):
    kind: str
    name: str
    description: str
    inputSchema: Dict[str, Any]
    annotations: Dict[str, bool]


class SessionTool(_SessionToolRequired, total=False):
    strict: bool


class RefusalApproval(TypedDict):
    """The approval an ``approval_required`` refusal waits on."""

    id: str
    status: str
    url: str
    expiresAt: str


class Refusal(TypedDict, total=False):
    code: str
    message: str
    connector: str
    connectUrl: str
    issues: List[Issue]
    choices: List[Choice]
    upstream: Any
    approval: RefusalApproval
    retryAfter: int


class ToolOutcome(TypedDict, total=False):
    """A session tool's answer: ok with result, or not ok with a refusal in error."""

    ok: bool
    result: Any
    error: Refusal


class ConnectLink(TypedDict):
    id: str
    url: str
    userId: str
    authConfigs: Optional[List[str]]
    expiresAt: str


class Trigger(TypedDict, total=False):
    id: str
    connectionId: str
    connectorId: str
    event: str
    userId: Optional[str]
    fireCount: int
    lastFiredAt: Optional[str]
    createdAt: str
    url: str


class Webhook(TypedDict, total=False):
    id: str
    url: str
    events: Optional[List[str]]
    description: str
    disabled: bool
    disabledAt: Optional[str]
    createdAt: str
    secret: str


class TriggerFiredData(TypedDict):
    triggerId: str
    connectionId: str
    connectorId: str
    userId: Optional[str]
    event: str
    payload: Any


class TriggerFiredEvent(TypedDict):
    type: str
    id: str
    timestamp: str
    data: TriggerFiredData


class OpenAIFunction(TypedDict, total=False):
    name: str
    description: str
    parameters: Dict[str, Any]
    strict: bool


class OpenAIChatTool(TypedDict):
    """A tool in OpenAI Chat Completions' function-calling shape."""

    type: str
    function: OpenAIFunction


Decision = Literal["allow", "ask", "deny"]
ApprovalStatus = Literal["pending", "approved", "denied", "used", "expired"]


class PolicyRule(TypedDict, total=False):
    """A stored policy rule (docs/policies.md)."""

    id: str
    level: str
    endpoint: str
    decision: Decision
    description: str
    priority: int
    match: Dict[str, Any]
    clientApproval: bool
    createdAt: str


class PolicyList(TypedDict):
    data: List[PolicyRule]
    defaultDecision: Decision


class Approval(TypedDict, total=False):
    """A call an ask rule held; it runs once, with exactly ``input``, when made again after approval."""

    id: str
    status: ApprovalStatus
    url: str
    toolId: str
    connectorId: str
    proxy: bool
    userId: str
    input: Dict[str, Any]
    ruleId: str
    sessionId: str
    endpoint: str
    apiKeyId: str
    decidedBy: str
    decidedAt: Optional[str]
    usedAt: Optional[str]
    createdAt: str
    expiresAt: str


class ApprovalPage(TypedDict):
    data: List[Approval]
    nextCursor: Optional[str]


class Quota(TypedDict):
    """At most ``limit`` calls a ``window`` over the calls its filters match."""

    id: str
    window: Literal["minute", "hour", "day"]
    limit: int
    userId: Optional[str]
    perUser: bool
    connectorId: Optional[str]
    toolId: Optional[str]
    createdAt: str


class RedactionPattern(TypedDict):
    name: str
    pattern: str


class RedactionRules(TypedDict):
    """What is hidden in tool outputs before they reach a model (docs/redaction.md)."""

    enabled: bool
    detectors: List[str]
    patterns: List[RedactionPattern]
    restExecute: bool
