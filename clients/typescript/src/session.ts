import type { Switchboard } from "./client.js";
import type { Session, SessionCallOutcome, SessionTool, ToolFormat } from "./types.js";

/** A tool in OpenAI Chat Completions' function-calling shape. */
export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown>; strict?: boolean };
}

/** A tool in the OpenAI Responses API's function shape. */
export interface OpenAIResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** A tool in the Vercel AI SDK's shape (`tools` of generateText / streamText). */
export interface VercelAITool<S> {
  description: string;
  inputSchema: S;
  execute: (args: Record<string, unknown>) => Promise<unknown>;
}

/** Turns session tools into OpenAI Chat Completions tools. */
export function toOpenAIChatTools(tools: SessionTool[]): OpenAIChatTool[] {
  return tools.map((t) => ({
    type: "function",
    function: {
      name: t.name,
      description: t.description,
      parameters: t.inputSchema,
      ...(t.strict === undefined ? {} : { strict: t.strict }),
    },
  }));
}

/** Turns session tools into OpenAI Responses API tools. */
export function toOpenAIResponsesTools(tools: SessionTool[]): OpenAIResponsesTool[] {
  return tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.inputSchema, strict: t.strict ?? false }));
}

/** What a model should read after a tool call: the result, or the refusal. */
export function outcomeForModel(outcome: SessionCallOutcome): string {
  return JSON.stringify(outcome.ok ? outcome.result : { error: outcome.error });
}

/** A session, with the helpers that hand its tools to a model. */
export class SessionHandle {
  readonly #client: Switchboard;
  readonly id: string;

  constructor(client: Switchboard, id: string) {
    this.#client = client;
    this.id = id;
  }

  /** Reads the session with its current connection states. */
  get(): Promise<Session> {
    return this.#client.getSession(this.id);
  }

  /** The session's tools in format (default json-schema). */
  async tools(format: ToolFormat = "json-schema"): Promise<SessionTool[]> {
    return (await this.#client.listSessionTools(this.id, format)).tools;
  }

  /** Runs one tool with the model's arguments. */
  call(name: string, args: Record<string, unknown> = {}): Promise<SessionCallOutcome> {
    return this.#client.callSessionTool(this.id, name, args);
  }

  /**
   * Runs one tool call as a model wrote it (arguments as a JSON string) and
   * returns the text to give back to the model.
   */
  async callForModel(name: string, argumentsJSON: string): Promise<string> {
    let args: Record<string, unknown>;
    try {
      args = argumentsJSON.trim() === "" ? {} : (JSON.parse(argumentsJSON) as Record<string, unknown>);
    } catch {
      return JSON.stringify({ error: { code: "invalid_arguments", message: "the arguments are not JSON" } });
    }
    return outcomeForModel(await this.call(name, args));
  }

  /** The tools as OpenAI Chat Completions tools, with strict schemas. */
  async openAIChatTools(): Promise<OpenAIChatTool[]> {
    return toOpenAIChatTools(await this.tools("openai-strict"));
  }

  /** The tools as OpenAI Responses API tools, with strict schemas. */
  async openAIResponsesTools(): Promise<OpenAIResponsesTool[]> {
    return toOpenAIResponsesTools(await this.tools("openai-strict"));
  }

  /**
   * The tools for the Vercel AI SDK. Pass its `jsonSchema` helper (from the
   * `ai` package) so this package needs no dependency on it:
   * `generateText({ model, tools: await session.vercelAITools(jsonSchema), ... })`.
   * Each tool's `execute` runs it in the session and returns the result, or
   * the refusal for the model to act on.
   */
  async vercelAITools<S>(jsonSchema: (schema: Record<string, unknown>) => S): Promise<Record<string, VercelAITool<S>>> {
    const out: Record<string, VercelAITool<S>> = {};
    for (const t of await this.tools("json-schema")) {
      out[t.name] = {
        description: t.description,
        inputSchema: jsonSchema(t.inputSchema),
        execute: async (args) => {
          const outcome = await this.call(t.name, args);
          return outcome.ok ? outcome.result : { error: outcome.error };
        },
      };
    }
    return out;
  }
}
