import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { OckClient, SessionError, ToolCallError, parseSession, hookResult, denies, TRACE_HEADER } from '../src/client.js';
import { startFake, SESSION } from './fake-server.js';

const clone = (v) => structuredClone(v);

test('connect reads and checks the session document', async () => {
  const fake = await startFake({ 'GET /ock/v1/session': { body: SESSION } });
  try {
    const client = await OckClient.connect(fake.url + '/');
    assert.equal(client.url, fake.url);
    assert.equal(client.traceId, 'ock-c273e4a5');
    assert.deepEqual(client.session.prompts, SESSION.prompts);
    assert.equal(fake.requests[0].url, '/ock/v1/session');
  } finally {
    await fake.close();
  }
});

test('a broken session names the JSON path at fault', () => {
  const bad = clone(SESSION);
  bad.providers[0].api = 'cohere'; // not a wire of SPEC.md 7.3
  assert.throws(() => parseSession(bad), (e) => e instanceof SessionError && e.path === '$.providers[0].api');
  const noTrace = { ...clone(SESSION), trace_id: '' };
  assert.throws(() => parseSession(noTrace), (e) => e.path === '$.trace_id');
  assert.throws(() => parseSession({ ...clone(SESSION), protocol: 'ock/2' }), /\$\.protocol/);
  assert.throws(() => parseSession({ ...clone(SESSION), prompts: ['a', 3] }), /\$\.prompts\[1\]/);
});

test('connect fails on a non-200 session reply and without a URL', async () => {
  const fake = await startFake({ 'GET /ock/v1/session': { status: 500, body: {} } });
  try {
    await assert.rejects(OckClient.connect(fake.url), /HTTP 500/);
  } finally {
    await fake.close();
  }
  await assert.rejects(OckClient.connect(''), /OCK_URL/);
});

test('emit posts exactly {event, data} with the trace header and returns the HookResult', async () => {
  const fake = await startFake({
    'GET /ock/v1/session': { body: SESSION },
    'POST /ock/v1/events': (req) => JSON.parse(req.body).event === 'tool:pre'
      ? { body: { action: 'modify', data: { tool_input: { city: 'Lyon' } } } }
      : { body: { action: 'continue' } },
  });
  try {
    const client = await OckClient.connect(fake.url);
    const data = { tool_call_id: 'call_1', tool_name: 'get_weather', tool_input: { city: 'Paris' }, parallel_group_id: 'pg-1' };
    const r = await client.emit('tool:pre', data);
    assert.equal(r.action, 'modify');
    assert.deepEqual(r.data, { tool_input: { city: 'Lyon' } });
    const sent = fake.requests.at(-1);
    assert.deepEqual(JSON.parse(sent.body), { event: 'tool:pre', data });
    assert.equal(sent.headers[TRACE_HEADER.toLowerCase()], 'ock-c273e4a5');
    assert.equal((await client.emit('prompt:submit', { prompt: 'x' })).action, 'continue');
  } finally {
    await fake.close();
  }
});

test('a reply that is not a HookResult, an HTTP error or no server count as continue', async () => {
  assert.equal(hookResult({ action: 'explode' }).action, 'continue');
  assert.equal(hookResult([1]).action, 'continue');
  assert.equal(hookResult({ action: 'deny', reason: 'no' }).reason, 'no');
  assert.equal(denies(hookResult({ action: 'ask_user' })), true);
  assert.equal(denies(hookResult({ action: 'modify' })), false);
  const fake = await startFake({ 'POST /ock/v1/events': { status: 400, body: { action: 'deny' } } });
  const client = new OckClient({ url: fake.url, session: SESSION });
  assert.equal((await client.emit('prompt:submit', { prompt: '' })).action, 'continue');
  await fake.close();
  assert.equal((await client.emit('prompt:submit', { prompt: '' })).action, 'continue');
});

test('callTool posts {tool_call_id, input} and returns the ToolResult unchanged', async () => {
  const result = { success: false, output: null, error: { type: 'x', message: 'boom' }, extra: 1 };
  const fake = await startFake({ 'POST /ock/v1/tools/get%20weather': { body: result } });
  try {
    const client = new OckClient({ url: fake.url, session: SESSION });
    assert.deepEqual(await client.callTool('get weather', 'call_9', { city: 'Paris' }), result);
    const sent = fake.requests[0];
    assert.deepEqual(JSON.parse(sent.body), { tool_call_id: 'call_9', input: { city: 'Paris' } });
    assert.equal(sent.headers['x-ock-trace-id'], 'ock-c273e4a5');
  } finally {
    await fake.close();
  }
});

test('callTool classifies failures by the SPEC.md 4.3.13 types', async () => {
  const fake = await startFake({
    'POST /ock/v1/tools/e500': { status: 500, body: { success: true, output: 'x', error: null } },
    'POST /ock/v1/tools/notresult': { body: { output: 'x' } },
    'POST /ock/v1/tools/slow': { hang: true },
  });
  const client = new OckClient({ url: fake.url, session: SESSION });
  try {
    await assert.rejects(client.callTool('e500', 'c1', {}), (e) => e instanceof ToolCallError && e.type === 'execution_failed' && e.status === 500);
    await assert.rejects(client.callTool('notresult', 'c2', {}), (e) => e.type === 'execution_failed' && /not a ToolResult/.test(e.message));
    await assert.rejects(client.callTool('slow', 'c3', {}, { timeoutMs: 100 }), (e) => e.type === 'timeout');
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await assert.rejects(client.callTool('slow', 'c4', {}, { signal: ac.signal, timeoutMs: 5000 }), (e) => e.type === 'cancelled');
  } finally {
    await fake.close();
  }
  await assert.rejects(client.callTool('e500', 'c5', {}), (e) => e.type === 'execution_failed' && /connection failed/.test(e.message));
});

test('tracedFetch adds the trace header and keeps the caller headers', async () => {
  const fake = await startFake({ 'POST /v1/chat/completions': { body: {} } });
  try {
    const client = new OckClient({ url: fake.url, session: SESSION });
    await client.tracedFetch()(`${fake.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: '{}' });
    assert.equal(fake.requests[0].headers['x-ock-trace-id'], 'ock-c273e4a5');
    assert.equal(fake.requests[0].headers.authorization, 'Bearer k');
  } finally {
    await fake.close();
  }
});

test('SIGINT aborts the running execute only, and never ends the process', async () => {
  const fake = await startFake({ 'GET /ock/v1/session': { body: SESSION } });
  try {
    const child = spawn(process.execPath, [fileURLToPath(new URL('./sigint-child.js', import.meta.url))], {
      env: { ...process.env, OCK_URL: fake.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      if (out === 'waiting\n') child.kill('SIGINT');
    });
    const code = await new Promise((resolve) => child.on('close', (c, sig) => resolve(sig ?? c)));
    assert.equal(out, 'waiting\naborted SIGINT\nsecond Thanks! aborted=false\nstatus 0\n');
    assert.equal(code, 0);
  } finally {
    await fake.close();
  }
});
