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
    const env = JSON.parse(text) as { error?: { code?: ErrorCode; message?: string; issues?: Issue[]; choices?: Choice[]; upstream?: Upstream } };
    if (env && typeof env === "object" && env.error && typeof env.error.code === "string") {
      return new SwitchboardError({
        status,
        code: env.error.code,
        message: env.error.message ?? env.error.code,
        issues: env.error.issues,
        choices: env.error.choices,
        upstream: env.error.upstream,
      });
    }
  } catch {
    // Not JSON: fall through to a status-only error.
  }
  return new SwitchboardError({ status, message: `HTTP ${status}${statusText ? " " + statusText : ""}` });
}

/** Thrown by verifyWebhook for a delivery not proven to come from Switchboard. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}
