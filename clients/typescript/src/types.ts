// Named types over the generated schema (src/schema.ts), so that callers
// need not index into it.
import type { components, operations } from "./schema.js";

type Schemas = components["schemas"];

/** An API error code; branch on it, never on the message. */
export type ErrorCode = Schemas["ErrorCode"];
export type Issue = Schemas["Issue"];
export type Choice = Schemas["Choice"];
export type Upstream = Schemas["Upstream"];
export type Category = Schemas["Category"];
export type DataClass = Schemas["DataClass"];
export type Connector = Schemas["Connector"];
export type ConnectorDetail = Schemas["ConnectorDetail"];
export type ConnectorPage = Schemas["ConnectorPage"];
export type Tool = Schemas["Tool"];
export type ToolPage = Schemas["ToolPage"];
export type Credential = Schemas["Credential"];
export type Connection = Schemas["Connection"];
export type ConnectionCreated = Schemas["ConnectionCreated"];
export type Policy = Schemas["Policy"];
export type Session = Schemas["Session"];
export type SessionTool = Schemas["SessionTool"];
export type SessionCallOutcome = Schemas["SessionCallOutcome"];
export type Refusal = Schemas["Refusal"];
export type ConnectLink = Schemas["ConnectLink"];
export type Trigger = Schemas["Trigger"];
export type TriggerCreated = Schemas["TriggerCreated"];
export type Webhook = Schemas["Webhook"];
export type WebhookCreated = Schemas["WebhookCreated"];
export type TriggerFiredEvent = Schemas["TriggerFiredEvent"];
export type Decision = Schemas["Decision"];
export type PolicyMatch = Schemas["PolicyMatch"];
export type PolicyCondition = Schemas["PolicyCondition"];
export type PolicyRule = Schemas["PolicyRule"];
/** A rule to create or replace; priority and clientApproval have defaults (1000, true). */
export type PolicyRuleInput = Omit<Schemas["PolicyRuleInput"], "priority" | "clientApproval"> &
  Partial<Pick<Schemas["PolicyRuleInput"], "priority" | "clientApproval">>;
export type Approval = Schemas["Approval"];
export type ApprovalStatus = Approval["status"];
export type Quota = Schemas["Quota"];
export type QuotaRequest = Schemas["QuotaRequest"];
export type RedactionRules = Schemas["RedactionRules"];
export type RedactionPattern = Schemas["RedactionPattern"];

/** The JSON request body of an operation. */
export type RequestBody<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;

/** The query parameters of an operation. */
export type QueryParams<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;

/** The JSON body of an operation's answer with status S. */
export type ResponseBody<Op extends keyof operations, S extends number = 200> = operations[Op]["responses"] extends Record<
  S,
  { content: { "application/json": infer R } }
>
  ? R
  : never;

/** The `data` of an operation's answer with status S. */
export type ResponseData<Op extends keyof operations, S extends number = 200> =
  ResponseBody<Op, S> extends { data: infer D } ? D : never;

export type ListConnectorsParams = QueryParams<"listConnectors">;
export type ListToolsParams = QueryParams<"listTools">;
export type ExecuteToolRequest = RequestBody<"executeTool">;
export type ProxyRequest = RequestBody<"proxyRequest">;
export type CreateConnectionRequest = RequestBody<"createConnection">;
export type UpdateConnectionRequest = RequestBody<"updateConnection">;
export type CreateSessionRequest = RequestBody<"createSession">;
export type CreateConnectLinkRequest = RequestBody<"createConnectLink">;
export type CreateTriggerRequest = RequestBody<"createTrigger">;
export type CreateWebhookRequest = RequestBody<"createWebhook">;
export type ListApprovalsParams = QueryParams<"listApprovals">;
export type UpdateQuotaRequest = RequestBody<"updateQuota">;
export type PutRedactionRequest = RequestBody<"putRedaction">;
/** `json-schema` (the default) or `openai-strict`. */
export type ToolFormat = NonNullable<QueryParams<"listSessionTools">["format"]>;
