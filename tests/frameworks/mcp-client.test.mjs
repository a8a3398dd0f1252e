// The official MCP TypeScript client (`@modelcontextprotocol/sdk`, Client +
// StreamableHTTPClientTransport) against the standalone mock's $OCK_URL/mcp (SPEC.md 7.10): it
// must list and call the scenario's tools as it would any MCP server's, and the journal must
// record the calls as the ock/1 tools endpoint does. A failure here is a finding about the mock.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startMock, importCached, alive, ROOT } from './harness.mjs';

const { Client } = await importCached('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = await importCached('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { LATEST_PROTOCOL_VERSION } = await importCached('@modelcontextprotocol/sdk/types.js');

// The SDK's exports map hides its package.json from require(): read the installed one.
const SDK_VERSION = JSON.parse(readFileSync(join(process.env.OCK_FRAMEWORKS_CACHE, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')).version;
const PINNED = JSON.parse(readFileSync(join(ROOT, 'tests/frameworks/package.json'), 'utf8')).dependencies['@modelcontextprotocol/sdk'];
const FIXTURE = 'tests/frameworks/fixtures/mcp-tools.json';
const fixture = JSON.parse(readFileSync(join(ROOT, FIXTURE), 'utf8'));
let mock;
let client;
let transport;

const journal = async () => (await fetch(`${mock.url}/ock/v1/journal`)).json();
const ofKind = (j, kind) => j.filter((e) => e.kind === kind);

before(async () => {
  mock = await startMock(FIXTURE);
  client = new Client({ name: 'ock-mcp-test', version: '1.0.0' });
  transport = new StreamableHTTPClientTransport(new URL(`${mock.url}/mcp`));
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  const { code, signal } = await mock.stop();
  assert.equal(signal, null);
  assert.equal(code, 0, 'the mock exits 0 on SIGTERM');
  assert.equal(alive(mock.pid), false, 'no mock process is left');
});

test(`connects with @modelcontextprotocol/sdk ${SDK_VERSION}: version, session, capabilities`, async () => {
  assert.equal(SDK_VERSION, PINNED, 'the pinned client is the one tested');
  assert.match(transport.sessionId, /^ock-[0-9a-f]{32}$/);
  assert.equal(transport.protocolVersion, LATEST_PROTOCOL_VERSION);
  assert.deepEqual(client.getServerCapabilities(), { tools: {} });
  assert.deepEqual(client.getServerVersion(), { name: 'ock-mock-provider', version: '1' });
  await client.ping();
  const opened = ofKind(await journal(), 'mcp_session');
  assert.equal(opened.length, 1);
  assert.equal(opened[0].session_id, transport.sessionId);
  assert.equal(opened[0].client_info.name, 'ock-mcp-test');
});

test('lists the scenario tools: names, descriptions, schemas', async () => {
  const { tools } = await client.listTools();
  const dflt = { type: 'object', properties: {} };
  assert.deepEqual(
    tools.map((t) => [t.name, t.description, t.inputSchema]),
    fixture.session.tools.map((t) => [t.name, t.description, t.input_schema ?? dflt]),
  );
});

test('calls a tool: the scripted output as text', async () => {
  const r = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' }, _meta: { 'ock/tool_call_id': 'call-a' } });
  assert.deepEqual(r, { content: [{ type: 'text', text: '15 degrees, cloudy' }], isError: false });
  const j = await journal();
  const start = ofKind(j, 'tool_start').at(-1);
  const end = ofKind(j, 'tool_end').at(-1);
  assert.deepEqual(
    { name: start.name, id: start.tool_call_id, input: start.input, known: start.known, via: start.via, inferred: start.tool_call_id_inferred, session: start.mcp_session_id },
    { name: 'get_weather', id: 'call-a', input: { city: 'Paris' }, known: true, via: 'mcp', inferred: false, session: transport.sessionId },
  );
  assert.deepEqual(
    { id: end.tool_call_id, status: end.status, reply: end.reply, via: end.via },
    { id: 'call-a', status: 200, reply: fixture.tools.get_weather.result, via: 'mcp' },
  );
});

test('a failing tool gives isError with "Error: <message>"', async () => {
  const r = await client.callTool({ name: 'flaky', arguments: {} });
  assert.deepEqual(r, { content: [{ type: 'text', text: 'Error: service down' }], isError: true });
});

test('a delayed tool answers after its delay, with JSON output as compact text', async () => {
  const t0 = performance.now();
  const r = await client.callTool({ name: 'slow', arguments: {} });
  assert.ok(performance.now() - t0 >= 290, 'the scripted 300 ms delay');
  assert.deepEqual(r, { content: [{ type: 'text', text: '{"done":true,"n":3}' }], isError: false });
});

test('an unknown tool is the protocol error -32602, journaled as unknown', async () => {
  await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), (e) => e.code === -32602 && /Unknown tool: nope/.test(e.message));
  const start = ofKind(await journal(), 'tool_start').at(-1);
  assert.equal(start.name, 'nope');
  assert.equal(start.known, false);
});

test('without _meta the tool_call_id is the model call with that name and those arguments', async () => {
  const res = await fetch(`${mock.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-ock', messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: [{ type: 'function', function: { name: 'get_weather', parameters: fixture.session.tools[0].input_schema } }] }),
  });
  const calls = (await res.json()).choices[0].message.tool_calls;
  assert.equal(calls.length, 2);
  await client.callTool({ name: 'get_weather', arguments: { city: 'Lyon' } });
  await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
  await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } }); // already answered
  const j = await journal();
  const starts = ofKind(j, 'tool_start').slice(-3);
  assert.deepEqual(starts.map((s) => [s.tool_call_id, s.tool_call_id_inferred]), [[calls[1].id, true], [calls[0].id, true], [null, true]]);
  const ends = ofKind(j, 'tool_end').slice(-3);
  assert.deepEqual(ends.map((e) => e.tool_call_id), [calls[1].id, calls[0].id, null]);
  const unrequested = ofKind(j, 'unrequested_tool_call').at(-1);
  assert.deepEqual({ name: unrequested.name, input: unrequested.input }, { name: 'get_weather', input: { city: 'Paris' } });
  assert.ok(unrequested.seq < starts[2].seq);
});

test('terminateSession ends the session: the next request is refused with 404', async () => {
  const sid = transport.sessionId;
  await transport.terminateSession();
  const r = await fetch(`${mock.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid },
    body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
  });
  assert.equal(r.status, 404);
});
