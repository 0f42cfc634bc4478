// @switchboard-gw/sdk: a client of the Switchboard API. The types come from
// the API's OpenAPI description (src/schema.ts is generated from it).
export { DEFAULT_BASE_URL, isRetryable, parseRetryAfter, Switchboard } from "./client.js";
export type { ClientOptions, WaitOptions } from "./client.js";
export { ApprovalRequiredError, ApprovalWaitError, isSwitchboardError, SwitchboardError, WebhookVerificationError } from "./errors.js";
export { outcomeForModel, SessionHandle, toOpenAIChatTools, toOpenAIResponsesTools } from "./session.js";
export type { OpenAIChatTool, OpenAIResponsesTool, VercelAITool } from "./session.js";
export { verifyWebhook } from "./webhook.js";
export type { HeaderSource, VerifyWebhookOptions } from "./webhook.js";
export type * from "./types.js";
export type { components, operations, paths, webhooks } from "./schema.js";
