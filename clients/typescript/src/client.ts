import { ApprovalRequiredError, ApprovalWaitError, errorFromResponse, SwitchboardError } from "./errors.js";
import { SessionHandle } from "./session.js";
import type {
  Approval,
  ConnectLink,
  Connection,
  ConnectionCreated,
  ConnectorDetail,
  ConnectorPage,
  CreateConnectionRequest,
  CreateConnectLinkRequest,
  CreateSessionRequest,
  CreateTriggerRequest,
  CreateWebhookRequest,
  ExecuteToolRequest,
  Decision,
  ListApprovalsParams,
  ListConnectorsParams,
  ListToolsParams,
  PolicyRule,
  PolicyRuleInput,
  PutRedactionRequest,
  Quota,
  QuotaRequest,
  RedactionRules,
  ProxyRequest,
  ResponseData,
  Session,
  SessionCallOutcome,
  SessionTool,
  ToolFormat,
  ToolPage,
  Trigger,
  TriggerCreated,
  UpdateConnectionRequest,
  UpdateQuotaRequest,
  Webhook,
  WebhookCreated,
} from "./types.js";

/** Where a local `switchboard serve` listens. */
export const DEFAULT_BASE_URL = "http://localhost:8080";

/** Options of a Switchboard client. */
export interface ClientOptions {
  /** The project's API key (sb_...). Keep it on the server: never ship it to a browser. */
  apiKey: string;
  /** The API's base URL; default DEFAULT_BASE_URL. */
  baseUrl?: string;
  /** How many times a retryable failure is retried; default 2, 0 turns retries off. */
  maxRetries?: number;
  /** The first retry's wait in milliseconds (doubled each time, with jitter); default 500. */
  initialBackoffMs?: number;
  /** The longest wait between tries in milliseconds; default 8000. A Retry-After answer overrides both. */
  maxBackoffMs?: number;
  /** The longest Retry-After waited out, in milliseconds; default 60000. An answer asking for longer is thrown at once, for the caller to schedule. */
  maxRetryAfterMs?: number;
  /** A fetch implementation; default the global fetch. */
  fetch?: typeof fetch;
  /** Waits between tries (tests replace it); default a timer. */
  sleep?: (ms: number) => Promise<void>;
}

type Query = Record<string, string | number | boolean | undefined>;

/** How waitForApproval polls. */
export interface WaitOptions {
  /** The longest wait in milliseconds; default until the approval expires, and a few seconds more. */
  timeoutMs?: number;
  /** The first wait between polls in milliseconds (each next one half as long again); default 1000. */
  intervalMs?: number;
  /** The longest wait between polls in milliseconds; default 15000. */
  maxIntervalMs?: number;
}

/**
 * Reports whether a failed answer may be tried again. 429 and 503 mean the
 * request was not acted on, and so does a provider's 429 passed on as
 * `error.upstream` (EXECUTION_ERROR with the provider's Retry-After): every
 * method retries those. Other 5xx answers retry only reads and deletes, since
 * a POST or PATCH (running a write tool, say) may have taken effect.
 */
export function isRetryable(method: string, status: number, upstreamStatus?: number): boolean {
  if (status === 429 || status === 503 || upstreamStatus === 429) return true;
  if (status >= 500) return method === "GET" || method === "HEAD" || method === "DELETE";
  return false;
}

/** Reads a Retry-After header (seconds or an HTTP date) as milliseconds. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(at - now, 0);
}

/** A client of one Switchboard project's API. */
export class Switchboard {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #maxRetries: number;
  readonly #initialBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: ClientOptions) {
    if (!options.apiKey) throw new TypeError("Switchboard: apiKey is required");
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    this.#apiKey = options.apiKey;
    this.#maxRetries = Math.max(options.maxRetries ?? 2, 0);
    this.#initialBackoffMs = options.initialBackoffMs ?? 500;
    this.#maxBackoffMs = options.maxBackoffMs ?? 8000;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  #backoff(attempt: number): number {
    const cap = Math.min(this.#initialBackoffMs * 2 ** attempt, this.#maxBackoffMs);
    return cap / 2 + Math.random() * (cap / 2);
  }

  /**
   * Sends one request and returns the decoded JSON answer, retrying as
   * isRetryable says. Failed answers throw SwitchboardError.
   */
  async request<T>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
    return (await this.#request(method, path, options)).body as T;
  }

  async #request(method: string, path: string, options: { query?: Query; body?: unknown }): Promise<{ status: number; body: unknown }> {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(options.query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.#apiKey}`,
      Accept: "application/json",
    };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(options.body);
    }
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.#fetch(url, body === undefined ? { method, headers } : { method, headers, body });
      } catch (err) {
        // No answer: only reads are safe to send again.
        if (attempt < this.#maxRetries && (method === "GET" || method === "HEAD")) {
          await this.#sleep(this.#backoff(attempt));
          continue;
        }
        throw err;
      }
      const text = await res.text();
      if (res.ok) {
        return { status: res.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
      }
      const error = errorFromResponse(res.status, res.statusText, text);
      error.retryAfterMs = parseRetryAfter(res.headers.get("Retry-After"));
      if (attempt < this.#maxRetries && isRetryable(method, res.status, error.upstream?.status)) {
        const wait = error.retryAfterMs ?? this.#backoff(attempt);
        if (wait > this.#maxRetryAfterMs) throw error;
        await this.#sleep(wait);
        continue;
      }
      throw error;
    }
  }

  async #data<T>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
    const out = await this.request<{ data: T }>(method, path, options);
    return out.data;
  }

  // Catalog.

  /** One page of the connectors the project can use. */
  listConnectors(params: ListConnectorsParams = {}): Promise<ConnectorPage> {
    return this.request("GET", "/v1/connectors", { query: params });
  }

  /** One connector; an unknown id throws CONNECTOR_NOT_FOUND. */
  getConnector(id: string): Promise<ConnectorDetail> {
    return this.#data("GET", `/v1/connectors/${encodeURIComponent(id)}`);
  }

  /** One page of the project's tools. */
  listTools(params: ListToolsParams = {}): Promise<ToolPage> {
    return this.request("GET", "/v1/tools", { query: params });
  }

  // Execution.

  /**
   * Runs one tool for one user outside any session and returns its result.
   * A call a policy holds for approval throws ApprovalRequiredError (see
   * executeToolWithApproval).
   */
  executeTool(body: ExecuteToolRequest): Promise<unknown> {
    return this.#runCall("/v1/tools/execute", body);
  }

  /**
   * Sends a raw request to a connector's API with the user's credential;
   * returns the provider's answer body. A call a policy holds for approval
   * throws ApprovalRequiredError.
   */
  proxy(body: ProxyRequest): Promise<unknown> {
    return this.#runCall("/v1/tools/proxy", body);
  }

  async #runCall(path: string, body: unknown): Promise<unknown> {
    const res = await this.#request("POST", path, { body });
    const data = (res.body as { data: unknown }).data;
    if (res.status === 202) throw new ApprovalRequiredError(data as Approval);
    return data;
  }

  /**
   * executeTool that, when a policy holds the call for approval, waits for
   * the decision (waitForApproval) and then runs the approved call. A
   * denial throws SwitchboardError 403 APPROVAL_DENIED, as the server
   * answers a denied call; an approval that expired or was spent by
   * another call throws ApprovalWaitError.
   */
  executeToolWithApproval(body: ExecuteToolRequest, options: WaitOptions = {}): Promise<unknown> {
    return this.#withApproval(() => this.executeTool(body), options);
  }

  /** proxy with executeToolWithApproval's waiting. */
  proxyWithApproval(body: ProxyRequest, options: WaitOptions = {}): Promise<unknown> {
    return this.#withApproval(() => this.proxy(body), options);
  }

  async #withApproval(call: () => Promise<unknown>, options: WaitOptions): Promise<unknown> {
    let approval: Approval;
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof ApprovalRequiredError)) throw err;
      approval = await this.waitForApproval(err.approvalId, options);
    }
    switch (approval.status) {
      case "approved":
        // The approved call runs once, with exactly the input it was held with.
        return call();
      case "denied":
        throw new SwitchboardError({
          status: 403,
          code: "APPROVAL_DENIED",
          message: `approval ${approval.id} was denied${approval.decidedBy ? " by " + approval.decidedBy : ""}`,
        });
      default:
        throw new ApprovalWaitError(approval, approval.status === "used" ? "used" : "expired");
    }
  }

  // Policies and approvals (docs/policies.md).

  /** The project's rules in the order they are tried, and its default decision. */
  listPolicies(): Promise<{ data: PolicyRule[]; defaultDecision: Decision }> {
    return this.request("GET", "/v1/policies");
  }

  /** Adds a rule; a bad one throws VALIDATION_ERROR with issues. `endpoint` sets it on an MCP endpoint. */
  createPolicy(body: PolicyRuleInput): Promise<PolicyRule> {
    return this.#data("POST", "/v1/policies", { body });
  }

  /** One rule. */
  getPolicy(id: string): Promise<PolicyRule> {
    return this.#data("GET", `/v1/policies/${encodeURIComponent(id)}`);
  }

  /** Replaces a rule. */
  replacePolicy(id: string, body: PolicyRuleInput): Promise<PolicyRule> {
    return this.#data("PUT", `/v1/policies/${encodeURIComponent(id)}`, { body });
  }

  /** Removes a rule. */
  deletePolicy(id: string): Promise<{ id: string }> {
    return this.#data("DELETE", `/v1/policies/${encodeURIComponent(id)}`);
  }

  /** Sets the decision for calls no project rule matches, and returns it. */
  async setPolicyDefault(decision: Decision): Promise<Decision> {
    const out = await this.#data<{ defaultDecision: Decision }>("PUT", "/v1/policies/default", { body: { decision } });
    return out.defaultDecision;
  }

  /** One page of the project's approvals, newest first. */
  listApprovals(params: ListApprovalsParams = {}): Promise<{ data: Approval[]; nextCursor: string | null }> {
    return this.request("GET", "/v1/approvals", { query: params });
  }

  /** One approval; its `status` tells whether it was decided. */
  getApproval(id: string): Promise<Approval> {
    return this.#data("GET", `/v1/approvals/${encodeURIComponent(id)}`);
  }

  /** Approves a pending approval; a decided or expired one throws CONFLICT. */
  approveApproval(id: string, approver?: string): Promise<Approval> {
    return this.#data("POST", `/v1/approvals/${encodeURIComponent(id)}/approve`, { body: approver === undefined ? {} : { approver } });
  }

  /** Denies a pending approval. */
  denyApproval(id: string, approver?: string): Promise<Approval> {
    return this.#data("POST", `/v1/approvals/${encodeURIComponent(id)}/deny`, { body: approver === undefined ? {} : { approver } });
  }

  /**
   * Polls an approval, backing off between polls, until it is no longer
   * pending, and returns it: status approved, denied, expired or used.
   * Past the timeout throws ApprovalWaitError with reason "timeout".
   */
  async waitForApproval(id: string, options: WaitOptions = {}): Promise<Approval> {
    let interval = options.intervalMs ?? 1000;
    const maxInterval = options.maxIntervalMs ?? 15_000;
    const start = Date.now();
    let deadline = options.timeoutMs === undefined ? undefined : start + options.timeoutMs;
    for (;;) {
      const approval = await this.getApproval(id);
      if (approval.status !== "pending") return approval;
      if (deadline === undefined) {
        const expires = Date.parse(approval.expiresAt);
        deadline = (Number.isNaN(expires) ? start + 15 * 60_000 : expires) + 5000;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new ApprovalWaitError(approval, "timeout");
      await this.#sleep(Math.min(interval, left));
      interval = Math.min(interval * 1.5, maxInterval);
    }
  }

  // Quotas (docs/quotas.md).

  /** The project's quotas, oldest first. */
  listQuotas(): Promise<Quota[]> {
    return this.#data("GET", "/v1/quotas");
  }

  /** Adds a quota: at most `limit` calls a `window` over the calls its filters match. */
  createQuota(body: QuotaRequest): Promise<Quota> {
    return this.#data("POST", "/v1/quotas", { body });
  }

  /** One quota. */
  getQuota(id: string): Promise<Quota> {
    return this.#data("GET", `/v1/quotas/${encodeURIComponent(id)}`);
  }

  /** Sets a quota's window and limit; its filters stay. */
  updateQuota(id: string, body: UpdateQuotaRequest): Promise<Quota> {
    return this.#data("PATCH", `/v1/quotas/${encodeURIComponent(id)}`, { body });
  }

  /** Removes a quota and its counts. */
  deleteQuota(id: string): Promise<{ id: string }> {
    return this.#data("DELETE", `/v1/quotas/${encodeURIComponent(id)}`);
  }

  // Redaction (docs/redaction.md).

  /** The project's redaction rules (`enabled` false when it has none). */
  getRedaction(): Promise<RedactionRules> {
    return this.#data("GET", "/v1/redaction");
  }

  /** Replaces the project's redaction rules. */
  setRedaction(body: PutRedactionRequest): Promise<RedactionRules> {
    return this.#data("PUT", "/v1/redaction", { body });
  }

  /** Removes the project's redaction rules. */
  deleteRedaction(): Promise<RedactionRules> {
    return this.#data("DELETE", "/v1/redaction");
  }

  // Connections.

  /** The user's accounts and the project's global accounts, oldest first. */
  listConnections(userId: string): Promise<Connection[]> {
    return this.#data("GET", "/v1/connections", { query: { userId } });
  }

  /** Stores a credential the caller already holds as a new account. */
  createConnection(body: CreateConnectionRequest): Promise<ConnectionCreated> {
    return this.#data("POST", "/v1/connections", { body });
  }

  /** Renames an account, or rotates its credential (with expectedRevision). */
  updateConnection(id: string, body: UpdateConnectionRequest): Promise<ResponseData<"updateConnection">> {
    return this.#data("PATCH", `/v1/connections/${encodeURIComponent(id)}`, { body });
  }

  /** Makes the account its user's default for its connector. */
  setDefaultConnection(id: string): Promise<ResponseData<"setDefaultConnection">> {
    return this.#data("POST", `/v1/connections/${encodeURIComponent(id)}/default`, { body: {} });
  }

  /** Removes an account, its credential and its triggers. */
  deleteConnection(id: string): Promise<ResponseData<"deleteConnection">> {
    return this.#data("DELETE", `/v1/connections/${encodeURIComponent(id)}`);
  }

  // Sessions.

  /** Creates a session for one user. */
  createSession(body: CreateSessionRequest): Promise<Session> {
    return this.#data("POST", "/v1/sessions", { body });
  }

  /** Reads a session with its current connection states. */
  getSession(id: string): Promise<Session> {
    return this.#data("GET", `/v1/sessions/${encodeURIComponent(id)}`);
  }

  /** Lists a session's tools: the meta tools, then the pinned tools. */
  listSessionTools(sessionId: string, format: ToolFormat = "json-schema"): Promise<{ scopeHash: string; tools: SessionTool[] }> {
    return this.#data("GET", `/v1/sessions/${encodeURIComponent(sessionId)}/tools`, { query: { format } });
  }

  /** Runs one session tool. A refusal for the model is `{ ok: false }`, not an error. */
  callSessionTool(sessionId: string, name: string, args: Record<string, unknown> = {}): Promise<SessionCallOutcome> {
    return this.request("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/tools/${encodeURIComponent(name)}`, {
      body: { arguments: args },
    });
  }

  /** A handle on one session, with helpers for function calling. */
  session(id: string): SessionHandle {
    return new SessionHandle(this, id);
  }

  // Connect links, triggers, webhooks.

  /** Creates a single-use link to the hosted Connect page. */
  createConnectLink(body: CreateConnectLinkRequest): Promise<ConnectLink> {
    return this.#data("POST", "/v1/connect-links", { body });
  }

  /** The project's triggers. */
  listTriggers(): Promise<Trigger[]> {
    return this.#data("GET", "/v1/triggers");
  }

  /** Subscribes to one provider event on one connection. */
  createTrigger(body: CreateTriggerRequest): Promise<TriggerCreated> {
    return this.#data("POST", "/v1/triggers", { body });
  }

  /** Removes a trigger. */
  deleteTrigger(id: string): Promise<{ id: string }> {
    return this.#data("DELETE", `/v1/triggers/${encodeURIComponent(id)}`);
  }

  /** The project's webhook endpoints. */
  listWebhooks(): Promise<Webhook[]> {
    return this.#data("GET", "/v1/webhooks");
  }

  /** Registers an endpoint for trigger.fired; the answer's `secret` is shown only this once. */
  createWebhook(body: CreateWebhookRequest): Promise<WebhookCreated> {
    return this.#data("POST", "/v1/webhooks", { body });
  }

  /** Removes a webhook endpoint. */
  deleteWebhook(id: string): Promise<{ id: string }> {
    return this.#data("DELETE", `/v1/webhooks/${encodeURIComponent(id)}`);
  }
}

export { SwitchboardError };
