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
/** `json-schema` (the default) or `openai-strict`. */
export type ToolFormat = NonNullable<QueryParams<"listSessionTools">["format"]>;
