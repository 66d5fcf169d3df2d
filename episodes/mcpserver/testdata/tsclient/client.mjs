// Drives sqlgym's MCP server with the official TypeScript SDK's client
// over Streamable HTTP: argv[2] is a JSON script
// {url, token, task_id, calls: [{tool, arguments}]}. It lists the tools,
// starts an episode on the task, makes the calls, reads the reward, ends
// the session, and prints what it got as one JSON object.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const script = JSON.parse(process.argv[2]);
const headers = script.token ? { Authorization: `Bearer ${script.token}` } : {};
const transport = new StreamableHTTPClientTransport(new URL(script.url), { requestInit: { headers } });
const client = new Client({ name: "sqlgym-ts-test", version: "1.0.0" });
await client.connect(transport);

const answer = (r) => ({
  text: r.content.filter((c) => c.type === "text").map((c) => c.text).join(""),
  isError: r.isError === true,
  structured: r.structuredContent,
});
const out = { server: client.getServerVersion(), tools: (await client.listTools()).tools, steps: [] };
out.start = answer(await client.callTool({ name: "start_episode", arguments: { task_id: script.task_id } }));
for (const c of script.calls) {
  out.steps.push(answer(await client.callTool({ name: c.tool, arguments: c.arguments })));
}
out.reward = answer(await client.callTool({ name: "get_reward", arguments: {} }));
await transport.terminateSession();
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
