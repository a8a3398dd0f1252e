// The official `openai` client against the standalone mock (SPEC.md 6.4, 6.6): what it reads
// must be what it would read from the real API. A failure here is a finding about the mock.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMock, importCached, recordingFetch, alive, SLOW_MACHINE_MS } from './harness.mjs';

const SDK = await importCached('openai');
const OpenAI = SDK.default;
let mock;
let client;
let rec;

const ask = (key, extra = {}) => ({
  model: 'gpt-ock',
  messages: [{ role: 'user', content: `[${key}] What is the weather in Paris?` }],
  ...extra,
});
const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];

before(async () => {
  mock = await startMock('tests/frameworks/fixtures/sdk-openai.json');
  rec = recordingFetch();
  client = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'ock-dummy-key', fetch: rec.fetch, maxRetries: 0 });
});

after(async () => {
  const { code, signal } = await mock.stop();
  assert.equal(signal, null);
  assert.equal(code, 0, 'the mock exits 0 on SIGTERM');
  assert.equal(alive(mock.pid), false, 'no mock process is left');
});

test('text, not streamed, with usage', async () => {
  const r = await client.chat.completions.create(ask('text'));
  assert.equal(r.choices[0].message.content, 'Hello from the mock.');
  assert.equal(r.choices[0].finish_reason, 'stop');
  assert.equal(r.object, 'chat.completion');
  assert.ok(Number.isInteger(r.usage.prompt_tokens) && r.usage.prompt_tokens > 0);
  assert.ok(Number.isInteger(r.usage.completion_tokens) && r.usage.completion_tokens > 0);
  assert.equal(r.usage.total_tokens, r.usage.prompt_tokens + r.usage.completion_tokens);
});

test('two tool calls, not streamed, arguments a JSON string', async () => {
  const r = await client.chat.completions.create(ask('tool', { tools }));
  const m = r.choices[0].message;
  assert.equal(r.choices[0].finish_reason, 'tool_calls');
  assert.equal(m.content, 'Let me check.');
  assert.deepEqual(m.tool_calls.map((c) => [c.type, c.function.name, JSON.parse(c.function.arguments)]),
    [['function', 'get_weather', { city: 'Paris' }], ['function', 'get_weather', { city: 'Lyon' }]]);
  assert.match(m.tool_calls[0].id, /^call_[0-9a-f]{8}_\d+_0$/);
  assert.notEqual(m.tool_calls[0].id, m.tool_calls[1].id);
});

test('streamed text through the stream helper, usage when asked for', async () => {
  const stream = client.chat.completions.stream(ask('stream-text', { stream_options: { include_usage: true } }));
  const deltas = [];
  stream.on('content', (delta) => deltas.push(delta));
  const final = await stream.finalChatCompletion();
  assert.deepEqual(deltas, ['It i', 's 15', ' deg', 'rees', ' in ', 'Pari', 's.']);
  assert.equal(final.choices[0].message.content, 'It is 15 degrees in Paris.');
  assert.equal(final.choices[0].finish_reason, 'stop');
  assert.ok(final.usage && final.usage.completion_tokens > 0, 'usage chunk present');
  assert.equal(final.usage.total_tokens, final.usage.prompt_tokens + final.usage.completion_tokens);
});

test('streamed tool call with arguments split across chunks, raw iteration', async () => {
  const stream = await client.chat.completions.create(ask('stream-tool', { tools, stream: true }));
  const fragments = [];
  let finish = null;
  for await (const chunk of stream) {
    for (const tc of chunk.choices[0]?.delta?.tool_calls ?? []) fragments.push(tc);
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  const args = fragments.map((f) => f.function?.arguments ?? '').join('');
  assert.ok(fragments.length > 5, `arguments arrive in pieces (${fragments.length} fragments)`);
  assert.ok(fragments.slice(1).every((f) => f.function.arguments.length <= 3));
  assert.equal(fragments[0].function.name, 'get_weather');
  assert.deepEqual(JSON.parse(args), { city: 'Paris', units: 'metric', note: 'quote " and brace } inside' });
  assert.equal(finish, 'tool_calls');
});

test('streamed tool call through the stream helper: the assembled call and its done event', async () => {
  const stream = client.chat.completions.stream(ask('stream-tool-helper', { tools }));
  const done = [];
  stream.on('tool_calls.function.arguments.done', (e) => done.push([e.index, e.name, e.arguments]));
  const final = await stream.finalChatCompletion();
  const call = final.choices[0].message.tool_calls[0];
  const want = { city: 'Paris', units: 'metric', note: 'quote " and brace } inside' };
  assert.equal(final.choices[0].message.content, 'Checking.');
  assert.equal(final.choices[0].finish_reason, 'tool_calls');
  assert.deepEqual([call.function.name, JSON.parse(call.function.arguments)], ['get_weather', want]);
  assert.deepEqual(done, [[0, 'get_weather', call.function.arguments]]);
});

for (const [status, cls] of [[400, 'BadRequestError'], [401, 'AuthenticationError'], [403, 'PermissionDeniedError'],
  [404, 'NotFoundError'], [409, 'ConflictError'], [422, 'UnprocessableEntityError'], [429, 'RateLimitError'],
  [500, 'InternalServerError'], [503, 'InternalServerError'], [529, 'InternalServerError']]) {
  test(`HTTP ${status} is raised as ${cls} with the scripted message`, async () => {
    const err = await client.chat.completions.create(ask(`status-${status}`)).then(() => null, (e) => e);
    assert.ok(err instanceof SDK[cls], `got ${err?.constructor?.name}: ${err?.message}`);
    assert.equal(err.status, status);
    assert.equal(err.error?.message, `ock: scripted status ${status}`);
    assert.match(err.message, new RegExp(`^${status} ock: scripted status ${status}$`));
  });
}

test('the SDK retries a 429 after the Retry-After seconds, not its own backoff', async () => {
  const c = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'k', fetch: rec.fetch, maxRetries: 2 });
  const from = rec.log.length;
  const r = await c.chat.completions.create(ask('retry-after'));
  assert.equal(r.choices[0].message.content, 'After the wait.');
  const tries = rec.log.slice(from);
  assert.equal(tries.length, 2);
  const gap = tries[1].at - tries[0].at;
  assert.ok(gap >= 950 && gap < SLOW_MACHINE_MS, `retry came ${gap.toFixed(0)} ms later, Retry-After said 1000`);
});

test('the SDK retries a 503 after retry-after-ms', async () => {
  const c = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'k', fetch: rec.fetch, maxRetries: 2 });
  const from = rec.log.length;
  const r = await c.chat.completions.create(ask('retry-after-ms'));
  assert.equal(r.choices[0].message.content, 'After the ms wait.');
  const tries = rec.log.slice(from);
  assert.equal(tries.length, 2);
  const gap = tries[1].at - tries[0].at;
  assert.ok(gap >= 1150 && gap < SLOW_MACHINE_MS, `retry came ${gap.toFixed(0)} ms later, retry-after-ms said 1200`);
});

test('a cut stream fails through the stream helper, and no tool call is reported complete', async () => {
  const stream = client.chat.completions.stream(ask('cut', { tools }));
  const done = [];
  stream.on('tool_calls.function.arguments.done', (e) => done.push(e));
  const err = await stream.finalChatCompletion().then(() => null, (e) => e);
  assert.ok(err instanceof SDK.OpenAIError, `a cut stream must reject, got ${err}`);
  if (process.env.OCK_SDK_VERBOSE) console.error('cut stream:', err.constructor.name, err.message);
  assert.deepEqual(done, []);
});

test('an error event mid-stream is raised as an APIError with the scripted message', async () => {
  const stream = client.chat.completions.stream(ask('error-mid-stream'));
  const err = await stream.finalChatCompletion().then(() => null, (e) => e);
  assert.ok(err instanceof SDK.APIError, `got ${err?.constructor?.name}: ${err?.message}`);
  assert.match(err.message, /ock: scripted stream error/);
});

test('a refusal on a wrong provider path is a NotFoundError in the OpenAI envelope', async () => {
  const c = new OpenAI({ baseURL: `${mock.url}/p/nope/v1`, apiKey: 'k', fetch: rec.fetch, maxRetries: 0 });
  const err = await c.chat.completions.create(ask('text')).then(() => null, (e) => e);
  assert.ok(err instanceof SDK.NotFoundError, `got ${err?.constructor?.name}: ${err?.message}`);
  assert.equal(err.type, 'invalid_request_error');
  assert.equal(err.param, null);
  assert.match(err.message, /^404 no provider "nope"/);
});

test('an empty messages array is a BadRequestError with the API text, param and code', async () => {
  const err = await client.chat.completions.create({ model: 'gpt-ock', messages: [] }).then(() => null, (e) => e);
  assert.ok(err instanceof SDK.BadRequestError, `got ${err?.constructor?.name}: ${err?.message}`);
  assert.match(err.message, /Invalid 'messages': empty array/);
  assert.equal(err.param, 'messages');
  assert.equal(err.code, 'empty_array');
});
