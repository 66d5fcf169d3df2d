// Drives sqlgym's MCP server with the official TypeScript SDK's client
// over Streamable HTTP: argv[2] is a JSON script
// {url, token, task_id, calls: [{tool, arguments}], per_call}. It lists the
// tools, starts an episode on the task, makes the calls, reads the reward,
// and prints what it got as one JSON object.
//
// In one session (per_call false) the calls go in the session that
// started the episode, which is ended at the close. With per_call, every
// call is made as the MCP Inspector's CLI makes each one: a new client
// and session, the tools listed, the call, the transport closed without
// ending the session; the episode is named by its episode_id.
//
// The SDK's client validates each result's structuredContent against the
// output schema tools/list gave (callTool throws on a mismatch);
// schema_refusals says, per tool, whether that validator refuses an
// object that is not the tool's, so that a validation passed means
// something.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

const script = JSON.parse(process.argv[2]);
const headers = script.token ? { Authorization: `Bearer ${script.token}` } : {};

const answer = (r) => ({
  text: r.content.filter((c) => c.type === "text").map((c) => c.text).join(""),
  isError: r.isError === true,
  structured: r.structuredContent,
});

async function open() {
  const transport = new StreamableHTTPClientTransport(new URL(script.url), { requestInit: { headers } });
  const client = new Client({ name: "sqlgym-ts-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

// One session for the whole episode.
async function inOneSession(out) {
  const { client, transport } = await open();
  out.server = client.getServerVersion();
  out.tools = (await client.listTools()).tools;
  out.start = answer(await client.callTool({ name: "start_episode", arguments: { task_id: script.task_id } }));
  for (const c of script.calls) {
    out.steps.push(answer(await client.callTool({ name: c.tool, arguments: c.arguments })));
  }
  out.reward = answer(await client.callTool({ name: "get_reward", arguments: {} }));
  await transport.terminateSession();
  await client.close();
}

// A session per call, as the Inspector CLI: list the tools, call, close.
async function once(name, args) {
  const { client, transport } = await open();
  const tools = (await client.listTools()).tools;
  const r = await client.callTool({ name, arguments: args });
  await transport.close();
  return { r, tools, server: client.getServerVersion() };
}

async function perCall(out) {
  const start = await once("start_episode", { task_id: script.task_id });
  out.server = start.server;
  out.tools = start.tools;
  out.start = answer(start.r);
  const episode_id = start.r.structuredContent.episode_id;
  for (const c of script.calls) {
    out.steps.push(answer((await once(c.tool, { ...c.arguments, episode_id })).r));
  }
  out.reward = answer((await once("get_reward", { episode_id })).r);
}

const out = { steps: [], schema_refusals: {} };
await (script.per_call ? perCall(out) : inOneSession(out));
const validator = new AjvJsonSchemaValidator();
for (const t of out.tools) {
  if (t.outputSchema) {
    out.schema_refusals[t.name] = !validator.getValidator(t.outputSchema)({ bogus: 1 }).valid;
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
