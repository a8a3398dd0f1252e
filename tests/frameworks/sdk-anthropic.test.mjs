// The official `@anthropic-ai/sdk` client against the standalone mock (SPEC.md 6.5, 6.6): what
// it reads must be what it would read from the real API. A failure here is a finding about the mock.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMock, importCached, recordingFetch, alive, SLOW_MACHINE_MS } from './harness.mjs';

const SDK = await importCached('@anthropic-ai/sdk');
const Anthropic = SDK.default;
let mock;
let client;
let rec;

const ask = (key, extra = {}) => ({
  model: 'claude-ock',
  max_tokens: 256,
  messages: [{ role: 'user', content: `[${key}] What is the weather in Paris?` }],
  ...extra,
});
const tools = [{ name: 'get_weather', description: 'Current weather for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
const WANT_ARGS = { city: 'Paris', units: 'metric', note: 'quote " and brace } inside' };

before(async () => {
  mock = await startMock('tests/frameworks/fixtures/sdk-anthropic.json');
  rec = recordingFetch();
  client = new Anthropic({ baseURL: mock.url, apiKey: 'ock-dummy-key', fetch: rec.fetch, maxRetries: 0 });
});

after(async () => {
  const { code, signal } = await mock.stop();
  assert.equal(signal, null);
  assert.equal(code, 0, 'the mock exits 0 on SIGTERM');
  assert.equal(alive(mock.pid), false, 'no mock process is left');
});

test('text, not streamed, with usage', async () => {
  const r = await client.messages.create(ask('text'));
  assert.equal(r.type, 'message');
  assert.equal(r.role, 'assistant');
  assert.deepEqual(r.content.map((b) => [b.type, b.text]), [['text', 'Hello from the mock.']]);
  assert.equal(r.stop_reason, 'end_turn');
  assert.ok(Number.isInteger(r.usage.input_tokens) && r.usage.input_tokens > 0);
  assert.ok(Number.isInteger(r.usage.output_tokens) && r.usage.output_tokens > 0);
});

test('two tool_use blocks, not streamed, input an object', async () => {
  const r = await client.messages.create(ask('tool', { tools }));
  assert.equal(r.stop_reason, 'tool_use');
  assert.deepEqual(r.content.map((b) => [b.type, b.text ?? b.name, b.input]),
    [['text', 'Let me check.', undefined], ['tool_use', 'get_weather', { city: 'Paris' }], ['tool_use', 'get_weather', { city: 'Lyon' }]]);
  assert.match(r.content[1].id, /^toolu_[0-9a-f]{8}_\d+_0$/);
  assert.notEqual(r.content[1].id, r.content[2].id);
});

test('streamed text through the stream helper, with usage', async () => {
  const stream = client.messages.stream(ask('stream-text'));
  const deltas = [];
  stream.on('text', (delta) => deltas.push(delta));
  const final = await stream.finalMessage();
  assert.deepEqual(deltas, ['It i', 's 15', ' deg', 'rees', ' in ', 'Pari', 's.']);
  assert.equal(await stream.finalText(), 'It is 15 degrees in Paris.');
  assert.equal(final.stop_reason, 'end_turn');
  assert.ok(final.usage.input_tokens > 0 && final.usage.output_tokens > 0);
});

test('streamed tool_use with input_json_delta split across events, raw iteration', async () => {
  const stream = await client.messages.create(ask('stream-tool', { tools, stream: true }));
  const parts = [];
  let stop = null;
  for await (const ev of stream) {
    if (ev.type === 'content_block_delta' && ev.delta.type === 'input_json_delta') parts.push(ev.delta.partial_json);
    if (ev.type === 'message_delta') stop = ev.delta.stop_reason;
  }
  assert.ok(parts.length > 5, `input arrives in pieces (${parts.length} fragments)`);
  assert.ok(parts.every((p) => p.length <= 3));
  assert.deepEqual(JSON.parse(parts.join('')), WANT_ARGS);
  assert.equal(stop, 'tool_use');
});

test('streamed tool_use through the stream helper: the assembled input', async () => {
  const stream = client.messages.stream(ask('stream-tool-helper', { tools }));
  const json = [];
  stream.on('inputJson', (partial) => json.push(partial));
  const final = await stream.finalMessage();
  const use = final.content.find((b) => b.type === 'tool_use');
  assert.equal(final.stop_reason, 'tool_use');
  assert.equal(final.content[0].text, 'Checking.');
  assert.deepEqual([use.name, use.input], ['get_weather', WANT_ARGS]);
  assert.ok(json.length > 5);
});

for (const [status, cls] of [[400, 'BadRequestError'], [401, 'AuthenticationError'], [403, 'PermissionDeniedError'],
  [404, 'NotFoundError'], [409, 'ConflictError'], [422, 'UnprocessableEntityError'], [429, 'RateLimitError'],
  [500, 'InternalServerError'], [503, 'InternalServerError'], [529, 'InternalServerError']]) {
  test(`HTTP ${status} is raised as ${cls} with the scripted message`, async () => {
    const err = await client.messages.create(ask(`status-${status}`)).then(() => null, (e) => e);
    assert.ok(err instanceof SDK[cls], `got ${err?.constructor?.name}: ${err?.message}`);
    assert.equal(err.status, status);
    assert.equal(err.error?.type, 'error');
    assert.equal(err.error?.error?.message, `ock: scripted status ${status}`);
    assert.match(err.message, new RegExp(`^${status} .*ock: scripted status ${status}`));
  });
}

test('the SDK retries a 429 after the Retry-After seconds, not its own backoff', async () => {
  const c = new Anthropic({ baseURL: mock.url, apiKey: 'k', fetch: rec.fetch, maxRetries: 2 });
  const from = rec.log.length;
  const r = await c.messages.create(ask('retry-after'));
  assert.equal(r.content[0].text, 'After the wait.');
  const tries = rec.log.slice(from);
  assert.equal(tries.length, 2);
  const gap = tries[1].at - tries[0].at;
  assert.ok(gap >= 950 && gap < SLOW_MACHINE_MS, `retry came ${gap.toFixed(0)} ms later, Retry-After said 1000`);
});

test('the SDK retries a 503 after retry-after-ms', async () => {
  const c = new Anthropic({ baseURL: mock.url, apiKey: 'k', fetch: rec.fetch, maxRetries: 2 });
  const from = rec.log.length;
  const r = await c.messages.create(ask('retry-after-ms'));
  assert.equal(r.content[0].text, 'After the ms wait.');
  const tries = rec.log.slice(from);
  assert.equal(tries.length, 2);
  const gap = tries[1].at - tries[0].at;
  assert.ok(gap >= 1150 && gap < SLOW_MACHINE_MS, `retry came ${gap.toFixed(0)} ms later, retry-after-ms said 1200`);
});

test('a cut stream fails through the stream helper', async () => {
  const stream = client.messages.stream(ask('cut', { tools }));
  const err = await stream.finalMessage().then(() => null, (e) => e);
  if (process.env.OCK_SDK_VERBOSE) console.error('cut stream:', err?.constructor?.name, err?.message);
  assert.ok(err instanceof SDK.AnthropicError, `a cut stream must reject, got ${err}`);
});

test('an error event mid-stream is raised as an APIError with the scripted message', async () => {
  const stream = client.messages.stream(ask('error-mid-stream'));
  const err = await stream.finalMessage().then(() => null, (e) => e);
  assert.ok(err instanceof SDK.APIError, `got ${err?.constructor?.name}: ${err?.message}`);
  assert.match(err.message, /ock: scripted stream error/);
});

test('a refusal on a wrong provider path is a NotFoundError typed not_found_error, with its request id', async () => {
  const c = new Anthropic({ baseURL: `${mock.url}/p/nope`, apiKey: 'k', fetch: rec.fetch, maxRetries: 0 });
  const err = await c.messages.create(ask('text')).then(() => null, (e) => e);
  assert.ok(err instanceof SDK.NotFoundError, `got ${err?.constructor?.name}: ${err?.message}`);
  assert.equal(err.error?.type, 'error');
  assert.equal(err.error?.error?.type, 'not_found_error');
  assert.match(err.requestID ?? '', /^req_ock_/);
});

test('an empty messages array is a BadRequestError with the API text', async () => {
  const err = await client.messages.create({ model: 'claude-ock', max_tokens: 16, messages: [] }).then(() => null, (e) => e);
  assert.ok(err instanceof SDK.BadRequestError, `got ${err?.constructor?.name}: ${err?.message}`);
  assert.equal(err.error?.error?.message, 'messages: at least one message is required');
});
