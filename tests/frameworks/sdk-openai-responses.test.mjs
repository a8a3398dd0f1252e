// The official `openai` client's Responses API (responses.create, responses.stream) against the
// standalone mock (SPEC.md 6.6, 6.9): what it reads must be what it would read from the real API,
// streamed and not, with tools, a conversation continued by previous_response_id, and the API's
// 400s for an orphaned call or output. A failure here is a finding about the mock.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMock, importCached, recordingFetch, alive, SLOW_MACHINE_MS } from './harness.mjs';

const SDK = await importCached('openai');
const OpenAI = SDK.default;
let mock;
let client;
let rec;

const ask = (key, extra = {}) => ({ model: 'gpt-ock', input: `[${key}] What is the weather in Paris?`, ...extra });
const tools = [{ type: 'function', name: 'get_weather', description: 'Current weather for a city', strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
const calls = (r) => r.output.filter((o) => o.type === 'function_call');

before(async () => {
  mock = await startMock('tests/frameworks/fixtures/sdk-responses.json');
  rec = recordingFetch();
  client = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'ock-dummy-key', fetch: rec.fetch, maxRetries: 0 });
});

after(async () => {
  const { code, signal } = await mock.stop();
  assert.equal(signal, null);
  assert.equal(code, 0, 'the mock exits 0 on SIGTERM');
  assert.equal(alive(mock.pid), false, 'no mock process is left');
});

test('text, not streamed: output_text, status and usage', async () => {
  const r = await client.responses.create(ask('text'));
  assert.equal(r.object, 'response');
  assert.equal(r.status, 'completed');
  assert.equal(r.output_text, 'Hello from the mock.');
  assert.match(r.id, /^resp_[0-9a-f]{8}_\d+$/);
  assert.equal(r.output[0].type, 'message');
  assert.equal(r.output[0].role, 'assistant');
  assert.ok(Number.isInteger(r.usage.input_tokens) && r.usage.input_tokens > 0);
  assert.ok(Number.isInteger(r.usage.output_tokens) && r.usage.output_tokens > 0);
  assert.equal(r.usage.total_tokens, r.usage.input_tokens + r.usage.output_tokens);
  assert.match(rec.log.at(-1).url, /\/v1\/responses$/);
});

test('two function calls, not streamed, arguments a JSON string', async () => {
  const r = await client.responses.create(ask('tool', { tools }));
  assert.equal(r.output_text, 'Let me check.');
  const fc = calls(r);
  assert.deepEqual(fc.map((c) => [c.name, JSON.parse(c.arguments), c.status]),
    [['get_weather', { city: 'Paris' }, 'completed'], ['get_weather', { city: 'Lyon' }, 'completed']]);
  assert.match(fc[0].call_id, /^call_[0-9a-f]{8}_\d+_0$/);
  assert.notEqual(fc[0].call_id, fc[1].call_id);
  assert.notEqual(fc[0].id, fc[0].call_id, 'the item id and the call id are different names');
});

test('streamed text through responses.stream: deltas, numbered events, the final response', async () => {
  const stream = client.responses.stream(ask('stream-text'));
  const deltas = [];
  const events = [];
  stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
  stream.on('event', (e) => events.push(e));
  const final = await stream.finalResponse();
  assert.deepEqual(deltas, ['It i', 's 15', ' deg', 'rees', ' in ', 'Pari', 's.']);
  // the helper's final response is response.completed's (this SDK adds no output_text there)
  assert.equal(final.output[0].content[0].text, 'It is 15 degrees in Paris.');
  assert.equal(final.status, 'completed');
  assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
  assert.equal(events[0].type, 'response.created');
  assert.equal(events.at(-1).type, 'response.completed');
});

test('streamed function call, raw iteration: argument fragments add up, .done carries them whole', async () => {
  const stream = await client.responses.create(ask('stream-tool', { tools, stream: true }));
  const fragments = [];
  let done = null;
  let added = null;
  for await (const e of stream) {
    if (e.type === 'response.function_call_arguments.delta') fragments.push(e.delta);
    if (e.type === 'response.function_call_arguments.done') done = e.arguments;
    if (e.type === 'response.output_item.added' && e.item.type === 'function_call') added = e.item;
  }
  const want = { city: 'Paris', units: 'metric', note: 'quote " and brace } inside' };
  assert.ok(fragments.length > 5, `arguments arrive in pieces (${fragments.length} fragments)`);
  assert.ok(fragments.every((f) => f.length <= 3));
  assert.equal(added.name, 'get_weather');
  assert.equal(added.arguments, '');
  assert.equal(fragments.join(''), done);
  assert.deepEqual(JSON.parse(done), want);
});

test('a chained conversation: previous_response_id and only the function_call_output', async () => {
  const r1 = await client.responses.create(ask('chain', { tools }));
  const [call] = calls(r1);
  const r2 = await client.responses.create({ model: 'gpt-ock', previous_response_id: r1.id, tools,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: '15 degrees [chain-result]' }] });
  assert.equal(r2.output_text, 'Chained: 15 degrees.');
  assert.notEqual(r2.id, r1.id);
  // the same stored response again, with no output for its call: the API's orphan 400
  const err = await client.responses.create({ model: 'gpt-ock', previous_response_id: r1.id, input: 'never mind' })
    .then(() => null, (e) => e);
  assert.ok(err instanceof SDK.BadRequestError, `got ${err?.constructor?.name}: ${err?.message}`);
  assert.equal(err.error.message, `No tool output found for function call ${call.call_id}.`);
  assert.equal(err.type, 'invalid_request_error');
  assert.equal(err.param, 'input');
  assert.equal(err.code, null);
});

test('an output without its call is the API\'s other orphan 400', async () => {
  const err = await client.responses.create({ model: 'gpt-ock',
    input: [{ role: 'user', content: 'q' }, { type: 'function_call_output', call_id: 'call_nope', output: 'x' }] })
    .then(() => null, (e) => e);
  assert.ok(err instanceof SDK.BadRequestError, `got ${err?.constructor?.name}: ${err?.message}`);
  assert.equal(err.error.message, 'No tool call found for function call output with call_id call_nope.');
  assert.equal(err.param, 'input');
});

test('an unknown previous_response_id is the API\'s 400', async () => {
  const err = await client.responses.create({ model: 'gpt-ock', previous_response_id: 'resp_gone', input: 'x' })
    .then(() => null, (e) => e);
  assert.ok(err instanceof SDK.BadRequestError, `got ${err?.constructor?.name}: ${err?.message}`);
  assert.equal(err.error.message, "Previous response with id 'resp_gone' not found.");
  assert.equal(err.param, 'previous_response_id');
  assert.equal(err.code, 'previous_response_not_found');
});

test('an incomplete response says why', async () => {
  const r = await client.responses.create(ask('incomplete'));
  assert.equal(r.status, 'incomplete');
  assert.deepEqual(r.incomplete_details, { reason: 'max_output_tokens' });
  assert.equal(r.output_text, 'Too long');
});

test('the SDK retries a 429 after the Retry-After seconds', async () => {
  const c = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'k', fetch: rec.fetch, maxRetries: 2 });
  const from = rec.log.length;
  const r = await c.responses.create(ask('retry-after'));
  assert.equal(r.output_text, 'After the wait.');
  const tries = rec.log.slice(from);
  assert.equal(tries.length, 2);
  const gap = tries[1].at - tries[0].at;
  assert.ok(gap >= 950 && gap < SLOW_MACHINE_MS, `retry came ${gap.toFixed(0)} ms later, Retry-After said 1000`);
});

test('a stream cut inside function_call_arguments never completes', async () => {
  const stream = await client.responses.create(ask('cut', { tools, stream: true }));
  const types = [];
  const err = await (async () => {
    for await (const e of stream) types.push(e.type);
  })().then(() => null, (e) => e);
  if (process.env.OCK_SDK_VERBOSE) console.error('cut stream:', err?.constructor?.name, err?.message, types.at(-1));
  assert.equal(types.at(-1), 'response.function_call_arguments.delta');
  assert.ok(!types.includes('response.completed') && !types.includes('response.function_call_arguments.done'));
});

test('an error event mid-stream rejects the stream helper with its code and message', async () => {
  const stream = client.responses.stream(ask('error-mid-stream'));
  const deltas = [];
  stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
  const err = await stream.finalResponse().then(() => null, (e) => e);
  // openai 7 rejects with an APIError that carries the `error` event (type, code, message,
  // sequence_number) as `error`, its type and code copied onto it
  assert.ok(err, 'the stream must reject');
  assert.equal(err.constructor.name, 'APIError');
  assert.equal(err.type, 'error');
  assert.equal(err.code, 'server_error');
  assert.equal(err.message, 'ock: scripted stream error');
  assert.equal(err.error?.type, 'error');
  assert.equal(err.error?.message, 'ock: scripted stream error');
  assert.equal(err.error?.sequence_number, 6);
  assert.deepEqual(deltas, ['It i', 's su']);
});
