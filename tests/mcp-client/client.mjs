// Connects to a Switchboard MCP URL with the official TypeScript MCP SDK
// client, lists the tools and calls the ones named in SB_CALLS, then prints
// one JSON document with what it saw. Exits non-zero on any failure.
//
//   SB_URL=<mcp url> SB_KEY=<api key> SB_CALLS='[{"name":"…","arguments":{…}}]' node client.mjs
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.env.SB_URL;
const key = process.env.SB_KEY;
const calls = JSON.parse(process.env.SB_CALLS || "[]");

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
const client = new Client({ name: "switchboard-ts-test", version: "1.0.0" });

try {
  await client.connect(transport);
  const listed = await client.listTools();
  await client.ping();
  const results = [];
  for (const call of calls) {
    const res = await client.callTool({ name: call.name, arguments: call.arguments });
    results.push({ name: call.name, isError: Boolean(res.isError), text: res.content?.[0]?.text ?? "" });
  }
  console.log(JSON.stringify({ server: client.getServerVersion(), tools: listed.tools.map((t) => t.name), results }));
  await client.close();
} catch (err) {
  console.error(String(err?.stack || err));
  process.exit(1);
}
