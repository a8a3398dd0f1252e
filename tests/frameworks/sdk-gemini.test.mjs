// The official `@google/genai` client against the standalone mock on the Gemini API wire (SPEC.md
// 6.5, 6.6, 6.7): what it reads must be what it would read from the real API. The client finds the
// mock through GOOGLE_GEMINI_BASE_URL and its key in GEMINI_API_KEY, as an unmodified program
// would. A failure here is a finding about the mock.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startMock, importCached, recordingFetch, alive } from './harness.mjs';

const SDK = await importCached('@google/genai');
const { GoogleGenAI, ApiError } = SDK;
let mock;
let ai;
let rec;
let lastKey; // the x-goog-api-key header of the last request

const MODEL = 'gemini-ock';
const user = (key, text = 'What is the weather in Paris?') => ({ role: 'user', parts: [{ text: `[${key}] ${text}` }] });
const weather = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const COUNT = 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';

before(async () => {
  mock = await startMock('tests/frameworks/fixtures/sdk-gemini.json');
  rec = recordingFetch();
  process.env.GOOGLE_GEMINI_BASE_URL = mock.url;
  process.env.GEMINI_API_KEY = 'ock-dummy-key';
  delete process.env.GOOGLE_API_KEY;
  const keyed = (input, init = {}) => {
    lastKey = new Headers(init.headers).get('x-goog-api-key');
    return rec.fetch(input, init);
  };
  ai = new GoogleGenAI({ httpOptions: { fetch: keyed } });
});

after(async () => {
  const { code, signal } = await mock.stop();
  assert.equal(signal, null);
  assert.equal(code, 0, 'the mock exits 0 on SIGTERM');
  assert.equal(alive(mock.pid), false, 'no mock process is left');
});

test('text, not streamed: the SDK calls {base}/v1/models/M:generateContent with x-goog-api-key', async () => {
  const r = await ai.models.generateContent({ model: MODEL, contents: [user('text')] });
  assert.equal(r.text, 'Hello from the mock.');
  assert.equal(r.candidates[0].finishReason, 'STOP');
  assert.equal(r.candidates[0].content.role, 'model');
  assert.equal(r.modelVersion, MODEL);
  assert.match(r.responseId, /^resp_[0-9a-f]{8}_\d+$/);
  assert.ok(r.usageMetadata.promptTokenCount > 0 && r.usageMetadata.candidatesTokenCount > 0);
  assert.equal(r.usageMetadata.totalTokenCount, r.usageMetadata.promptTokenCount + r.usageMetadata.candidatesTokenCount);
  const sent = rec.log.at(-1);
  assert.equal(new URL(sent.url).pathname, `/v1/models/${MODEL}:generateContent`);
  assert.equal(lastKey, 'ock-dummy-key');
  const journal = await (await fetch(`${mock.url}/ock/v1/journal`)).json();
  const req = journal.filter((e) => e.kind === 'llm_request').at(-1);
  assert.equal(req.api, 'gemini');
});

test('function calling: two calls with ids, answered by id, then the answer', async () => {
  const config = { tools: [{ functionDeclarations: [weather] }] };
  const first = user('tool');
  const r = await ai.models.generateContent({ model: MODEL, contents: [first], config });
  assert.equal(r.text, 'Let me check.');
  const calls = r.functionCalls;
  assert.deepEqual(calls.map((c) => [c.name, c.args]), [['get_weather', { city: 'Paris' }], ['get_weather', { city: 'Lyon' }]]);
  assert.match(calls[0].id, /^fc_[0-9a-f]{8}_\d+_0$/);
  assert.notEqual(calls[0].id, calls[1].id);
  const sent = JSON.parse(rec.log.at(-1).body);
  assert.equal(sent.tools[0].functionDeclarations[0].name, 'get_weather');
  const answers = calls.map((c, i) => ({ functionResponse: { id: c.id, name: c.name, response: { output: `[fc-result] ${i ? 17 : 15} degrees` } } }));
  const r2 = await ai.models.generateContent({
    model: MODEL,
    contents: [first, r.candidates[0].content, { role: 'user', parts: answers }],
    config,
  });
  assert.equal(r2.text, 'Paris 15, Lyon 17.');
  assert.equal(r2.functionCalls, undefined);
});

test('an orphan call is refused with the API text, as an ApiError 400', async () => {
  const contents = [
    user('orphan'),
    { role: 'model', parts: [{ functionCall: { id: 'fc_x', name: 'get_weather', args: { city: 'Paris' } } }] },
    user('orphan', 'Never mind.'),
  ];
  const err = await ai.models.generateContent({ model: MODEL, contents }).then(() => null, (e) => e);
  assert.ok(err instanceof ApiError, `got ${err?.constructor?.name}: ${err?.message}`);
  assert.equal(err.status, 400);
  const body = JSON.parse(err.message);
  assert.deepEqual(body, { error: { code: 400, message: COUNT, status: 'INVALID_ARGUMENT' } });
});

test('streamed text through generateContentStream: fragments, the last chunk ends it', async () => {
  const chunks = [];
  for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: [user('stream-text')] })) chunks.push(c);
  assert.deepEqual(chunks.map((c) => c.text), ['It i', 's 15', ' deg', 'rees', ' in ', 'Pari', 's.', '']);
  assert.equal(chunks.at(-1).candidates[0].finishReason, 'STOP');
  assert.ok(chunks.slice(0, -1).every((c) => c.candidates[0].finishReason === undefined));
  assert.equal(new URL(rec.log.at(-1).url).search, '?alt=sse');
});

test('a streamed function call arrives whole, in its own chunk', async () => {
  const config = { tools: [{ functionDeclarations: [weather] }] };
  const chunks = [];
  for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: [user('stream-tool')], config })) chunks.push(c);
  const withCalls = chunks.filter((c) => c.functionCalls);
  assert.equal(withCalls.length, 1);
  assert.deepEqual(withCalls[0].functionCalls.map((c) => [c.name, c.args]),
    [['get_weather', { city: 'Paris', note: 'quote " and brace } inside' }]]);
  assert.equal(chunks.map((c) => c.text ?? '').join(''), 'Checking.');
});

test('declarations with an OpenAPI `parameters` schema are accepted too', async () => {
  const fn = { name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } } };
  const r = await ai.models.generateContent({ model: MODEL, contents: [user('parameters')], config: { tools: [{ functionDeclarations: [fn] }] } });
  assert.deepEqual(r.functionCalls.map((c) => c.args), [{ city: 'Oslo' }]);
});

test('HTTP 429 is an ApiError with RESOURCE_EXHAUSTED', async () => {
  const err = await ai.models.generateContent({ model: MODEL, contents: [user('quota')] }).then(() => null, (e) => e);
  assert.ok(err instanceof ApiError, `got ${err?.constructor?.name}: ${err?.message}`);
  assert.equal(err.status, 429);
  assert.deepEqual(JSON.parse(err.message).error,
    { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' });
});

test('a cut stream ends without a chunk that has a finishReason', async () => {
  const chunks = [];
  for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: [user('cut')] })) chunks.push(c);
  assert.deepEqual(chunks.map((c) => c.text), ['Part', 'ial ', 'answ']);
  assert.ok(chunks.every((c) => c.candidates[0].finishReason === undefined));
});

test('an error event mid-stream is thrown by the iterator as an ApiError', async () => {
  const seen = [];
  const err = await (async () => {
    for await (const c of await ai.models.generateContentStream({ model: MODEL, contents: [user('mid-error')] })) seen.push(c.text);
  })().then(() => null, (e) => e);
  assert.deepEqual(seen, ['It i', 's su']);
  assert.ok(err instanceof ApiError, `got ${err?.constructor?.name}: ${err?.message}`);
  assert.equal(err.status, 503);
  assert.match(err.message, /The model is overloaded\. Please try again later\./);
});
