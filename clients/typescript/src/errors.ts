import type { Approval, Choice, ErrorCode, Issue, Upstream } from "./types.js";

/**
 * A failed API call. `code` is the API's error code (see ErrorCode); it is
 * undefined only when the answer carried no error envelope (a proxy's page,
 * an empty 405). Branch on `code`, never on `message`.
 */
export class SwitchboardError extends Error {
  override readonly name = "SwitchboardError";
  readonly status: number;
  readonly code: ErrorCode | undefined;
  readonly issues: Issue[];
  readonly choices: Choice[];
  readonly upstream: Upstream | undefined;
  /**
   * The answer's Retry-After in milliseconds, when it had one: with
   * RATE_LIMITED, the time until the quota's window ends; with a provider's
   * 429, the provider's wait.
   */
  retryAfterMs: number | undefined;

  constructor(init: {
    status: number;
    code?: ErrorCode | undefined;
    message: string;
    issues?: Issue[] | undefined;
    choices?: Choice[] | undefined;
    upstream?: Upstream | undefined;
    retryAfterMs?: number | undefined;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.issues = init.issues ?? [];
    this.choices = init.choices ?? [];
    this.upstream = init.upstream;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/**
 * Thrown by executeTool and proxy when a policy's ask rule held the call
 * (HTTP 202, docs/policies.md): nothing ran. Once a person approves
 * `approval`, the same call made again (same tool, user and input) runs
 * once; waitForApproval waits for the decision, and
 * executeToolWithApproval / proxyWithApproval do all of it.
 */
export class ApprovalRequiredError extends Error {
  override readonly name = "ApprovalRequiredError";
  readonly approval: Approval;
  readonly approvalId: string;

  constructor(approval: Approval) {
    super(`the call waits for approval ${approval.id} (until ${approval.expiresAt}); wait with waitForApproval, then make the same call again`);
    this.approval = approval;
    this.approvalId = approval.id;
  }
}

/**
 * An approval waited on did not let the call run: `reason` is "timeout"
 * (still pending when the wait's timeout passed), "expired" (no decision
 * before it expired) or "used" (another call spent it). `approval` is its
 * last state seen.
 */
export class ApprovalWaitError extends Error {
  override readonly name = "ApprovalWaitError";
  readonly approval: Approval;
  readonly reason: "timeout" | "expired" | "used";

  constructor(approval: Approval, reason: "timeout" | "expired" | "used") {
    super(
      reason === "timeout"
        ? `approval ${approval.id} is still pending after the wait's timeout`
        : `approval ${approval.id} is ${approval.status}; the call did not run`,
    );
    this.approval = approval;
    this.reason = reason;
  }
}

/** Reports whether err is a SwitchboardError, with the given code when one is given. */
export function isSwitchboardError(err: unknown, code?: ErrorCode): err is SwitchboardError {
  return err instanceof SwitchboardError && (code === undefined || err.code === code);
}

/** Builds the error for a failed answer from its status and body text. */
export function errorFromResponse(status: number, statusText: string, text: string): SwitchboardError {
  try {
    const env: unknown = JSON.parse(text);
    const e: unknown = typeof env === "object" && env !== null ? (env as { error?: unknown }).error : undefined;
    if (typeof e === "object" && e !== null && typeof (e as { code?: unknown }).code === "string") {
      const body = e as { code: ErrorCode; message?: string; issues?: Issue[]; choices?: Choice[]; upstream?: Upstream };
      return new SwitchboardError({
        status,
        code: body.code,
        message: body.message ?? body.code,
        issues: body.issues,
        choices: body.choices,
        upstream: body.upstream,
      });
    }
  } catch {
    // Not JSON: fall through to a status-only error.
  }
  return new SwitchboardError({ status, message: `HTTP ${String(status)}${statusText ? " " + statusText : ""}` });
}

/** Thrown by verifyWebhook for a delivery not proven to come from Switchboard. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}
