"""The HTTP client of the Switchboard API."""

from __future__ import annotations

import datetime
import email.utils
import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, cast

from ._errors import ApprovalRequired, ApprovalWaitError, SwitchboardError, error_from_response
from ._types import (
    Approval,
    ApprovalPage,
    ApprovalStatus,
    Decision,
    PolicyList,
    PolicyRule,
    Quota,
    RedactionPattern,
    RedactionRules,
    ConnectLink,
    Connection,
    Connector,
    ConnectorPage,
    OpenAIChatTool,
    Policy,
    Session,
    SessionTool,
    ToolFormat,
    ToolOutcome,
    ToolPage,
    Trigger,
    Webhook,
)

DEFAULT_BASE_URL = "http://localhost:8080"
"""Where a local ``switchboard serve`` listens."""


def is_retryable(method: str, status: int, upstream_status: Optional[int] = None) -> bool:
    """Reports whether a failed answer may be tried again.

    429 and 503 mean the request was not acted on, and so does a provider's
    429 passed on as ``error.upstream`` (EXECUTION_ERROR with the provider's
    Retry-After): every method retries those. Other 5xx answers retry only
    reads and deletes, since a POST or PATCH (running a write tool, say) may
    have taken effect.
    """
    if status in (429, 503) or upstream_status == 429:
        return True
    if status >= 500:
        return method in ("GET", "HEAD", "DELETE")
    return False


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Reads a Retry-After header (seconds or an HTTP date) as seconds to wait."""
    if value is None or not value.strip():
        return None
    v = value.strip()
    if v.isdigit():
        return float(v)
    try:
        at = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(at.timestamp() - current, 0.0)


def _drop_none(d: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def to_openai_chat_tools(tools: List[SessionTool]) -> List[OpenAIChatTool]:
    """Turns session tools into OpenAI Chat Completions tools."""
    out: List[OpenAIChatTool] = []
    for t in tools:
        fn: Dict[str, Any] = {"name": t["name"], "description": t["description"], "parameters": t["inputSchema"]}
        if "strict" in t:
            fn["strict"] = t["strict"]
        out.append(cast(OpenAIChatTool, {"type": "function", "function": fn}))
    return out


def outcome_for_model(outcome: ToolOutcome) -> str:
    """What a model should read after a tool call: the result, or the refusal."""
    if outcome.get("ok"):
        return json.dumps(outcome.get("result"))
    return json.dumps({"error": outcome.get("error")})


class Switchboard:
    """A client of one Switchboard project's API.

    Keep the API key on the server. Failed calls raise SwitchboardError;
    retryable failures (see is_retryable) are retried ``max_retries`` times,
    waiting as Retry-After says or backing off exponentially with jitter.
    """

    def __init__(
        self,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        *,
        max_retries: int = 2,
        timeout: float = 60.0,
        initial_backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_retry_after: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not api_key:
            raise ValueError("Switchboard: api_key is required")
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._max_retries = max(max_retries, 0)
        self._timeout = timeout
        self._initial_backoff = initial_backoff
        self._max_backoff = max_backoff
        # A longer Retry-After is raised at once, for the caller to schedule.
        self._max_retry_after = max_retry_after
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"Switchboard(base_url={self.base_url!r})"

    def _backoff(self, attempt: int) -> float:
        cap: float = min(self._initial_backoff * (2**attempt), self._max_backoff)
        return cap / 2 + random.random() * cap / 2

    def request(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None, body: Any = None) -> Any:
        """Sends one request and returns the decoded JSON answer (None when empty)."""
        return self._request(method, path, query, body)[1]

    def _request(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None, body: Any = None) -> Tuple[int, Any]:
        """request, with the status of the successful answer (202 for a held call)."""
        url = self.base_url + path
        if query:
            q = {k: ("true" if v is True else "false" if v is False else str(v)) for k, v in query.items() if v is not None}
            if q:
                url += "?" + urllib.parse.urlencode(q)
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {self._api_key}", "Accept": "application/json", "User-Agent": "switchboard-python"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        attempt = 0
        while True:
            req = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self._timeout) as resp:
                    text = resp.read().decode()
                    return resp.status, json.loads(text) if text else None
            except urllib.error.HTTPError as e:
                text = e.read().decode(errors="replace")
                err = error_from_response(e.code, e.reason if isinstance(e.reason, str) else "", text)
                upstream = err.upstream.get("status") if isinstance(err.upstream, dict) else None
                err.retry_after = parse_retry_after(e.headers.get("Retry-After"))
                if attempt < self._max_retries and is_retryable(method, e.code, upstream):
                    wait = err.retry_after
                    if wait is None:
                        wait = self._backoff(attempt)
                    if wait > self._max_retry_after:
                        raise err from None
                    self._sleep(wait)
                    attempt += 1
                    continue
                raise err from None
            except urllib.error.URLError:
                # No answer: only reads are safe to send again.
                if attempt < self._max_retries and method in ("GET", "HEAD"):
                    self._sleep(self._backoff(attempt))
                    attempt += 1
                    continue
                raise

    def _data(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None, body: Any = None) -> Any:
        return self.request(method, path, query, body)["data"]

    # Catalog.

    def list_connectors(
        self,
        *,
        query: Optional[str] = None,
        category: Optional[str] = None,
        popular: Optional[bool] = None,
        facets: Optional[bool] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> ConnectorPage:
        """One page of the connectors the project can use."""
        q = {"query": query, "category": category, "popular": popular, "facets": facets, "limit": limit, "cursor": cursor}
        return cast(ConnectorPage, self.request("GET", "/v1/connectors", q))

    def get_connector(self, connector_id: str) -> Connector:
        """One connector; an unknown id raises CONNECTOR_NOT_FOUND."""
        return cast(Connector, self._data("GET", "/v1/connectors/" + _seg(connector_id)))

    def list_tools(
        self,
        *,
        query: Optional[str] = None,
        connector_id: Optional[str] = None,
        category: Optional[str] = None,
        data_classification: Optional[str] = None,
        view: Optional[str] = None,
        facets: Optional[bool] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> ToolPage:
        """One page of the project's tools."""
        q = {
            "query": query,
            "connectorId": connector_id,
            "category": category,
            "dataClassification": data_classification,
            "view": view,
            "facets": facets,
            "limit": limit,
            "cursor": cursor,
        }
        return cast(ToolPage, self.request("GET", "/v1/tools", q))

    # Execution.

    def execute_tool(
        self,
        tool_id: str,
        input: Optional[Mapping[str, Any]] = None,
        *,
        user_id: Optional[str] = None,
        connection_id: Optional[str] = None,
        allow_global_accounts: Optional[bool] = None,
    ) -> Any:
        """Runs one tool for one user outside any session and returns its result.

        A call a policy holds for approval raises ApprovalRequired (see
        execute_tool_with_approval).
        """
        body = _drop_none(
            {"toolId": tool_id, "input": input, "userId": user_id, "connectionId": connection_id, "allowGlobalAccounts": allow_global_accounts}
        )
        return self._run_call("/v1/tools/execute", body)

    def proxy(
        self,
        connector_id: str,
        user_id: str,
        endpoint: str,
        *,
        method: str = "GET",
        query: Optional[Mapping[str, str]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        connection_id: Optional[str] = None,
        allow_global_accounts: Optional[bool] = None,
    ) -> Any:
        """Sends a raw request to a connector's API with the user's credential.

        A call a policy holds for approval raises ApprovalRequired.
        """
        req = _drop_none(
            {
                "connectorId": connector_id,
                "userId": user_id,
                "endpoint": endpoint,
                "method": method,
                "query": query,
                "body": body,
                "headers": headers,
                "connectionId": connection_id,
                "allowGlobalAccounts": allow_global_accounts,
            }
        )
        return self._run_call("/v1/tools/proxy", req)

    def _run_call(self, path: str, body: Any) -> Any:
        status, out = self._request("POST", path, body=body)
        if status == 202:
            raise ApprovalRequired(cast(Approval, out["data"]))
        return out["data"]

    # Connections.

    def list_connections(self, user_id: str) -> List[Connection]:
        """The user's accounts and the project's global accounts, oldest first."""
        return cast(List[Connection], self._data("GET", "/v1/connections", {"userId": user_id}))

    def create_connection(
        self,
        connector_id: str,
        credential: Mapping[str, Any],
        *,
        user_id: Optional[str] = None,
        global_account: bool = False,
        auth_config: Optional[str] = None,
        name: Optional[str] = None,
    ) -> Connection:
        """Stores a credential the caller already holds (e.g. {"type": "api_key", "apiKey": ...}) as a new account."""
        body = _drop_none(
            {"connectorId": connector_id, "credential": dict(credential), "userId": user_id, "global": global_account or None, "authConfig": auth_config, "name": name}
        )
        return cast(Connection, self._data("POST", "/v1/connections", body=body))

    def update_connection(
        self,
        connection_id: str,
        *,
        name: Optional[str] = None,
        credential: Optional[Mapping[str, Any]] = None,
        expected_revision: Any = None,
    ) -> Connection:
        """Renames an account, or rotates its credential (with expected_revision)."""
        body = _drop_none({"name": name, "credential": None if credential is None else dict(credential), "expectedRevision": expected_revision})
        return cast(Connection, self._data("PATCH", "/v1/connections/" + _seg(connection_id), body=body))

    def set_default_connection(self, connection_id: str) -> Connection:
        """Makes the account its user's default for its connector."""
        return cast(Connection, self._data("POST", "/v1/connections/" + _seg(connection_id) + "/default", body={}))

    def delete_connection(self, connection_id: str) -> Dict[str, Any]:
        """Removes an account, its credential and its triggers."""
        return cast(Dict[str, Any], self._data("DELETE", "/v1/connections/" + _seg(connection_id)))

    # Sessions.

    def create_session(
        self,
        user_id: str,
        *,
        connectors: Optional[List[str]] = None,
        actions: Optional[List[str]] = None,
        pinned: Optional[List[str]] = None,
        accounts: Optional[Mapping[str, str]] = None,
        allow_global_accounts: Optional[bool] = None,
        policy: Optional[Policy] = None,
        ttl_minutes: Optional[int] = None,
    ) -> Session:
        """Creates a session for one user."""
        body = _drop_none(
            {
                "userId": user_id,
                "connectors": connectors,
                "actions": actions,
                "pinned": pinned,
                "accounts": accounts,
                "allowGlobalAccounts": allow_global_accounts,
                "policy": policy,
                "ttlMinutes": ttl_minutes,
            }
        )
        return cast(Session, self._data("POST", "/v1/sessions", body=body))

    def get_session(self, session_id: str) -> Session:
        """Reads a session with its current connection states."""
        return cast(Session, self._data("GET", "/v1/sessions/" + _seg(session_id)))

    def list_session_tools(self, session_id: str, format: ToolFormat = "json-schema") -> List[SessionTool]:
        """A session's tools: the meta tools, then the pinned tools."""
        data = self._data("GET", "/v1/sessions/" + _seg(session_id) + "/tools", {"format": format})
        return cast(List[SessionTool], data["tools"])

    def call_session_tool(self, session_id: str, name: str, arguments: Optional[Mapping[str, Any]] = None) -> ToolOutcome:
        """Runs one session tool. A refusal for the model is {"ok": False, ...}, not an exception."""
        path = "/v1/sessions/" + _seg(session_id) + "/tools/" + _seg(name)
        return cast(ToolOutcome, self.request("POST", path, body={"arguments": dict(arguments or {})}))

    def session(self, session_id: str) -> "SessionHandle":
        """A handle on one session, with helpers for function calling."""
        return SessionHandle(self, session_id)

    # Connect links, triggers, webhooks.

    def create_connect_link(
        self,
        user_id: str,
        *,
        connectors: Optional[List[str]] = None,
        auth_configs: Optional[List[str]] = None,
        redirect_url: Optional[str] = None,
        expires_in_minutes: Optional[int] = None,
        connection_id: Optional[str] = None,
    ) -> ConnectLink:
        """Creates a single-use link to the hosted Connect page."""
        body = _drop_none(
            {
                "userId": user_id,
                "connectors": connectors,
                "authConfigs": auth_configs,
                "redirectUrl": redirect_url,
                "expiresInMinutes": expires_in_minutes,
                "connectionId": connection_id,
            }
        )
        return cast(ConnectLink, self._data("POST", "/v1/connect-links", body=body))

    def list_triggers(self) -> List[Trigger]:
        """The project's triggers."""
        return cast(List[Trigger], self._data("GET", "/v1/triggers"))

    def create_trigger(
        self, connection_id: str, event: str, *, secret: Optional[str] = None, config: Optional[Mapping[str, Any]] = None
    ) -> Trigger:
        """Subscribes to one provider event on one connection."""
        body = _drop_none({"connectionId": connection_id, "event": event, "secret": secret, "config": config})
        return cast(Trigger, self._data("POST", "/v1/triggers", body=body))

    def delete_trigger(self, trigger_id: str) -> Dict[str, Any]:
        """Removes a trigger."""
        return cast(Dict[str, Any], self._data("DELETE", "/v1/triggers/" + _seg(trigger_id)))

    def list_webhooks(self) -> List[Webhook]:
        """The project's webhook endpoints."""
        return cast(List[Webhook], self._data("GET", "/v1/webhooks"))

    def create_webhook(self, url: str, *, description: Optional[str] = None) -> Webhook:
        """Registers an endpoint for trigger.fired; the answer's secret is shown only this once."""
        return cast(Webhook, self._data("POST", "/v1/webhooks", body=_drop_none({"url": url, "description": description})))

    def delete_webhook(self, webhook_id: str) -> Dict[str, Any]:
        """Removes a webhook endpoint."""
        return cast(Dict[str, Any], self._data("DELETE", "/v1/webhooks/" + _seg(webhook_id)))

    # Policies and approvals (docs/policies.md).

    def list_policies(self) -> PolicyList:
        """The project's rules in the order they are tried, and its ``defaultDecision``."""
        return cast(PolicyList, self.request("GET", "/v1/policies"))

    def create_policy(
        self,
        decision: Decision,
        *,
        match: Optional[Mapping[str, Any]] = None,
        description: Optional[str] = None,
        priority: Optional[int] = None,
        client_approval: Optional[bool] = None,
        endpoint: Optional[str] = None,
    ) -> PolicyRule:
        """Adds a rule; a bad one raises VALIDATION_ERROR with issues. ``endpoint`` sets it on an MCP endpoint."""
        body = _policy_body(decision, match, description, priority, client_approval)
        if endpoint is not None:
            body["endpoint"] = endpoint
        return cast(PolicyRule, self._data("POST", "/v1/policies", body=body))

    def get_policy(self, rule_id: str) -> PolicyRule:
        """One rule."""
        return cast(PolicyRule, self._data("GET", "/v1/policies/" + _seg(rule_id)))

    def replace_policy(
        self,
        rule_id: str,
        decision: Decision,
        *,
        match: Optional[Mapping[str, Any]] = None,
        description: Optional[str] = None,
        priority: Optional[int] = None,
        client_approval: Optional[bool] = None,
    ) -> PolicyRule:
        """Replaces a rule."""
        body = _policy_body(decision, match, description, priority, client_approval)
        return cast(PolicyRule, self._data("PUT", "/v1/policies/" + _seg(rule_id), body=body))

    def delete_policy(self, rule_id: str) -> Dict[str, Any]:
        """Removes a rule."""
        return cast(Dict[str, Any], self._data("DELETE", "/v1/policies/" + _seg(rule_id)))

    def set_policy_default(self, decision: Decision) -> Decision:
        """Sets the decision for calls no project rule matches, and returns it."""
        return cast(Decision, self._data("PUT", "/v1/policies/default", body={"decision": decision})["defaultDecision"])

    def list_approvals(
        self,
        *,
        status: Optional[ApprovalStatus] = None,
        user_id: Optional[str] = None,
        tool_id: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> ApprovalPage:
        """One page of the project's approvals, newest first."""
        q = {"status": status, "userId": user_id, "toolId": tool_id, "limit": limit, "cursor": cursor}
        return cast(ApprovalPage, self.request("GET", "/v1/approvals", q))

    def get_approval(self, approval_id: str) -> Approval:
        """One approval; its ``status`` tells whether it was decided."""
        return cast(Approval, self._data("GET", "/v1/approvals/" + _seg(approval_id)))

    def approve_approval(self, approval_id: str, *, approver: Optional[str] = None) -> Approval:
        """Approves a pending approval; a decided or expired one raises CONFLICT."""
        body = _drop_none({"approver": approver})
        return cast(Approval, self._data("POST", "/v1/approvals/" + _seg(approval_id) + "/approve", body=body))

    def deny_approval(self, approval_id: str, *, approver: Optional[str] = None) -> Approval:
        """Denies a pending approval."""
        body = _drop_none({"approver": approver})
        return cast(Approval, self._data("POST", "/v1/approvals/" + _seg(approval_id) + "/deny", body=body))

    def wait_for_approval(
        self,
        approval_id: str,
        *,
        timeout: Optional[float] = None,
        interval: float = 1.0,
        max_interval: float = 15.0,
    ) -> Approval:
        """Polls an approval until it is no longer pending and returns it.

        Its status is then approved, denied, expired or used. Polls back off
        from ``interval`` (half as long again each time) up to
        ``max_interval`` seconds. Past ``timeout`` seconds (default: until
        the approval expires, and a few seconds more) raises
        ApprovalWaitError with reason ``"timeout"``.
        """
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
        while True:
            approval = self.get_approval(approval_id)
            if approval.get("status") != "pending":
                return approval
            if deadline is None:
                deadline = start + 15 * 60 + 5
                expires = _parse_time(approval.get("expiresAt", ""))
                if expires is not None:
                    deadline = start + max(expires - time.time(), 0) + 5
            left = deadline - time.monotonic()
            if left <= 0:
                raise ApprovalWaitError(approval, "timeout")
            self._sleep(min(interval, left))
            interval = min(interval * 1.5, max_interval)

    def execute_tool_with_approval(
        self,
        tool_id: str,
        input: Optional[Mapping[str, Any]] = None,
        *,
        user_id: Optional[str] = None,
        connection_id: Optional[str] = None,
        allow_global_accounts: Optional[bool] = None,
        timeout: Optional[float] = None,
        interval: float = 1.0,
        max_interval: float = 15.0,
    ) -> Any:
        """execute_tool that, when a policy holds the call, waits for the decision and runs the approved call.

        A denial raises SwitchboardError 403 APPROVAL_DENIED, as the server
        answers a denied call; an approval that expired or was spent by
        another call raises ApprovalWaitError; see wait_for_approval for
        the waiting.
        """

        def call() -> Any:
            return self.execute_tool(
                tool_id, input, user_id=user_id, connection_id=connection_id, allow_global_accounts=allow_global_accounts
            )

        return self._with_approval(call, timeout, interval, max_interval)

    def proxy_with_approval(
        self,
        connector_id: str,
        user_id: str,
        endpoint: str,
        *,
        method: str = "GET",
        query: Optional[Mapping[str, str]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        connection_id: Optional[str] = None,
        allow_global_accounts: Optional[bool] = None,
        timeout: Optional[float] = None,
        interval: float = 1.0,
        max_interval: float = 15.0,
    ) -> Any:
        """proxy with execute_tool_with_approval's waiting."""

        def call() -> Any:
            return self.proxy(
                connector_id,
                user_id,
                endpoint,
                method=method,
                query=query,
                body=body,
                headers=headers,
                connection_id=connection_id,
                allow_global_accounts=allow_global_accounts,
            )

        return self._with_approval(call, timeout, interval, max_interval)

    def _with_approval(self, call: Callable[[], Any], timeout: Optional[float], interval: float, max_interval: float) -> Any:
        try:
            return call()
        except ApprovalRequired as held:
            approval = self.wait_for_approval(held.approval_id, timeout=timeout, interval=interval, max_interval=max_interval)
        status = approval.get("status")
        if status == "approved":
            # The approved call runs once, with exactly the input it was held with.
            return call()
        if status == "denied":
            by = approval.get("decidedBy")
            raise SwitchboardError(403, "APPROVAL_DENIED", f"approval {approval.get('id')} was denied" + (f" by {by}" if by else ""))
        raise ApprovalWaitError(approval, str(status))

    # Quotas (docs/quotas.md).

    def list_quotas(self) -> List[Quota]:
        """The project's quotas, oldest first."""
        return cast(List[Quota], self._data("GET", "/v1/quotas"))

    def create_quota(
        self,
        window: str,
        limit: int,
        *,
        user_id: Optional[str] = None,
        per_user: Optional[bool] = None,
        connector_id: Optional[str] = None,
        tool_id: Optional[str] = None,
    ) -> Quota:
        """Adds a quota: at most ``limit`` calls a ``window`` (minute, hour or day) over the calls the filters match."""
        body = _drop_none(
            {"window": window, "limit": limit, "userId": user_id, "perUser": per_user, "connectorId": connector_id, "toolId": tool_id}
        )
        return cast(Quota, self._data("POST", "/v1/quotas", body=body))

    def get_quota(self, quota_id: str) -> Quota:
        """One quota."""
        return cast(Quota, self._data("GET", "/v1/quotas/" + _seg(quota_id)))

    def update_quota(self, quota_id: str, window: str, limit: int) -> Quota:
        """Sets a quota's window and limit; its filters stay."""
        return cast(Quota, self._data("PATCH", "/v1/quotas/" + _seg(quota_id), body={"window": window, "limit": limit}))

    def delete_quota(self, quota_id: str) -> Dict[str, Any]:
        """Removes a quota and its counts."""
        return cast(Dict[str, Any], self._data("DELETE", "/v1/quotas/" + _seg(quota_id)))

    # Redaction (docs/redaction.md).

    def get_redaction(self) -> RedactionRules:
        """The project's redaction rules (``enabled`` false when it has none)."""
        return cast(RedactionRules, self._data("GET", "/v1/redaction"))

    def set_redaction(
        self,
        *,
        detectors: Optional[List[str]] = None,
        patterns: Optional[List[RedactionPattern]] = None,
        rest_execute: bool = False,
    ) -> RedactionRules:
        """Replaces the project's redaction rules."""
        body = {"detectors": detectors or [], "patterns": patterns or [], "restExecute": rest_execute}
        return cast(RedactionRules, self._data("PUT", "/v1/redaction", body=body))

    def delete_redaction(self) -> RedactionRules:
        """Removes the project's redaction rules."""
        return cast(RedactionRules, self._data("DELETE", "/v1/redaction"))


def _policy_body(
    decision: str,
    match: Optional[Mapping[str, Any]],
    description: Optional[str],
    priority: Optional[int],
    client_approval: Optional[bool],
) -> Dict[str, Any]:
    return _drop_none(
        {
            "decision": decision,
            "match": None if match is None else dict(match),
            "description": description,
            "priority": priority,
            "clientApproval": client_approval,
        }
    )


def _parse_time(value: str) -> Optional[float]:
    """An RFC 3339 timestamp as a Unix time, or None."""
    try:
        return datetime.datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class SessionHandle:
    """A session, with the helpers that hand its tools to a model."""

    def __init__(self, client: Switchboard, session_id: str) -> None:
        self._client = client
        self.id = session_id

    def get(self) -> Session:
        """Reads the session with its current connection states."""
        return self._client.get_session(self.id)

    def tools(self, format: ToolFormat = "json-schema") -> List[SessionTool]:
        """The session's tools."""
        return self._client.list_session_tools(self.id, format)

    def call(self, name: str, arguments: Optional[Mapping[str, Any]] = None) -> ToolOutcome:
        """Runs one tool with the model's arguments."""
        return self._client.call_session_tool(self.id, name, arguments)

    def call_for_model(self, name: str, arguments_json: str) -> str:
        """Runs a tool call as a model wrote it (arguments as JSON text); returns the text for the model."""
        try:
            args = json.loads(arguments_json) if arguments_json.strip() else {}
        except ValueError:
            return json.dumps({"error": {"code": "invalid_arguments", "message": "the arguments are not JSON"}})
        return outcome_for_model(self.call(name, args))

    def openai_chat_tools(self) -> List[OpenAIChatTool]:
        """The tools as OpenAI Chat Completions tools, with strict schemas."""
        return to_openai_chat_tools(self.tools("openai-strict"))

    def openai_responses_tools(self) -> List[Dict[str, Any]]:
        """The tools as OpenAI Responses API tools, with strict schemas."""
        return [
            {"type": "function", "name": t["name"], "description": t["description"], "parameters": t["inputSchema"], "strict": t.get("strict", False)}
            for t in self.tools("openai-strict")
        ]


def _seg(s: str) -> str:
    return urllib.parse.quote(s, safe="")
