import type { Choice, ErrorCode, Issue, Upstream } from "./types.js";

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

  constructor(init: {
    status: number;
    code?: ErrorCode | undefined;
    message: string;
    issues?: Issue[] | undefined;
    choices?: Choice[] | undefined;
    upstream?: Upstream | undefined;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.issues = init.issues ?? [];
    this.choices = init.choices ?? [];
    this.upstream = init.upstream;
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
