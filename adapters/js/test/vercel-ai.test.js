// The Vercel AI SDK bridge under node --test, with the framework replaced by test/fakes/ai.js
// (no registry, no framework installed): how its middleware and tool wrappers turn what the
// framework does into ock/1 events, and how it applies the HookResults.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import './fakes/register.js';
import { drive, session, dataOf, completion, sleep } from './harness.js';

const { fake } = await import('./fakes/ai.js');
const { executeVercelAi, newState, sessionModel, ORCHESTRATOR } = await import('../src/vercel-ai.js');

const usage = { inputTokens: 12, outputTokens: 3 };
const text = (t) => ({ content: [{ type: 'text', text: t }], finishReason: 'stop', usage, response: { body: { choices: [{ finish_reason: 'stop' }] } } });
const calls = (...cs) => ({
  content: cs.map(([id, args]) => ({ type: 'tool-call', toolCallId: id, toolName: 'get_weather', input: JSON.stringify(args) })),
  finishReason: 'tool-calls', usage, response: { body: { choices: [{ finish_reason: 'tool_calls' }] } },
});
const run = (opts) => drive(executeVercelAi, newState, opts);

beforeEach(() => {
  fake.replies = [];
  fake.params = [];
});

test('a tool round: the events in order, with the fields the framework gave', async () => {
  fake.replies = [calls(['call_1', { city: 'Paris' }]), text('15 degrees in Paris')];
  const { events, tools, state } = await run();
  assert.deepEqual(events.map((e) => e.event), ['prompt:submit', 'provider:request', 'provider:response', 'tool:pre', 'tool:post',
    'provider:request', 'provider:response', 'prompt:complete', 'orchestrator:complete']);
  assert.deepEqual(dataOf(events, 'provider:request'), [1, 2].map((iteration) => ({ provider: 'primary', model: 'gpt-ock', iteration, attempt: 1 })));
  const [first] = dataOf(events, 'provider:response');
  assert.deepEqual(first, { provider: 'primary', iteration: 1, content: '', tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
    finish_reason: 'tool_calls', usage: { input_tokens: 12, output_tokens: 3 } });
  const ids = { tool_call_id: 'call_1', tool_name: 'get_weather', parallel_group_id: 'pg-0-1' };
  assert.deepEqual(dataOf(events, 'tool:pre'), [{ ...ids, tool_input: { city: 'Paris' } }]);
  assert.deepEqual(tools, [{ name: 'get_weather', tool_call_id: 'call_1', input: { city: 'Paris' }, trace: 'ock-0badc0de' }]);
  assert.deepEqual(dataOf(events, 'tool:post'), [{ ...ids, result: { success: true, output: '15 degrees', error: null }, tool_input: { city: 'Paris' } }]);
  assert.equal(state.history.at(-2).content[0].output, '15 degrees', 'the framework gets the result text');
  assert.deepEqual(dataOf(events, 'prompt:complete'), [{ response: '15 degrees in Paris' }]);
  assert.deepEqual(completion(events), { orchestrator: ORCHESTRATOR, turn_count: 2, status: 'success' });
});

test('a tool:pre deny: tool:error denied, the tool is not called, the model reads the denial', async () => {
  fake.replies = [calls(['call_1', { city: 'Paris' }]), text('I may not.')];
  const reply = (event) => (event === 'tool:pre' ? { action: 'deny', reason: 'Not allowed' } : undefined);
  const { events, tools, state } = await run({ reply });
  assert.deepEqual(tools, []);
  assert.deepEqual(dataOf(events, 'tool:error'), [{ tool_call_id: 'call_1', tool_name: 'get_weather', parallel_group_id: 'pg-0-1',
    error: { type: 'denied', message: 'Not allowed' }, tool_input: { city: 'Paris' } }]);
  assert.equal(dataOf(events, 'tool:post').length, 0);
  assert.equal(state.history.at(-2).content[0].output, 'Error: denied: Not allowed');
});

test('a tool:pre modify: the tool receives the replacement input, tool:post carries it', async () => {
  fake.replies = [calls(['call_1', { city: 'Paris' }]), text('ok')];
  const reply = (event) => (event === 'tool:pre' ? { action: 'modify', data: { tool_input: { city: 'Lyon' } } } : undefined);
  const { events, tools } = await run({ reply });
  assert.deepEqual(tools.map((t) => t.input), [{ city: 'Lyon' }]);
  assert.deepEqual(dataOf(events, 'tool:post')[0].tool_input, { city: 'Lyon' });
});

test('a provider:request deny stops the call before the model runs', async () => {
  fake.replies = [text('never sent')];
  const reply = (event) => (event === 'provider:request' ? { action: 'deny', reason: 'Budget exhausted' } : undefined);
  const { events } = await run({ reply });
  assert.equal(fake.replies.length, 1, 'the model was not called');
  assert.deepEqual(events.map((e) => e.event), ['prompt:submit', 'provider:request', 'prompt:complete', 'orchestrator:complete']);
  assert.deepEqual(dataOf(events, 'prompt:complete'), [{ response: 'Denied: Budget exhausted' }]);
  assert.deepEqual(completion(events), { orchestrator: ORCHESTRATOR, turn_count: 0, status: 'incomplete', reason: 'denied' });
});

test('a prompt:submit deny (ask_user counts as one) ends the execute without a request', async () => {
  fake.replies = [text('never sent')];
  const reply = (event) => (event === 'prompt:submit' ? { action: 'ask_user', reason: 'Sure?' } : undefined);
  const { events } = await run({ reply });
  assert.deepEqual(events.map((e) => e.event), ['prompt:submit', 'prompt:complete', 'orchestrator:complete']);
  assert.deepEqual(dataOf(events, 'prompt:complete'), [{ response: 'Denied: No approval system available' }]);
  assert.equal(completion(events).reason, 'denied');
});

test('an HTTP error of the model: provider:error with status and retryable, then status error', async () => {
  fake.replies = [Object.assign(new Error('Too Many Requests'), { name: 'AI_APICallError', statusCode: 429 })];
  const { events } = await run();
  assert.deepEqual(dataOf(events, 'provider:error'), [{ provider: 'primary', iteration: 1, attempt: 1,
    error: { type: 'http_error', message: 'HTTP 429: Too Many Requests' }, retryable: true, status_code: 429 }]);
  assert.deepEqual(completion(events), { orchestrator: ORCHESTRATOR, turn_count: 1, status: 'error', error: { type: 'http_error', message: 'HTTP 429: Too Many Requests' } });
});

test('the step limit reached on a tool step: status incomplete, reason max_iterations', async () => {
  fake.replies = [calls(['call_1', { city: 'Paris' }])];
  const { events } = await run({ doc: session({ config: { max_iterations: 1 } }) });
  assert.equal(dataOf(events, 'provider:request').length, 1);
  assert.deepEqual(completion(events), { orchestrator: ORCHESTRATOR, turn_count: 1, status: 'incomplete', reason: 'max_iterations' });
});

test('parallel_tools false runs the calls of a step one after another, in call order', async () => {
  const slow = async () => { await sleep(60); return { success: true, output: 'x', error: null }; };
  fake.replies = [calls(['call_a', { city: 'A' }], ['call_b', { city: 'B' }]), text('done')];
  const sequential = await run({ doc: session({ config: { parallel_tools: false } }), tool: slow });
  assert.deepEqual(sequential.log.filter((l) => l.startsWith('tool')), ['tool:pre', 'tool get_weather', 'tool get_weather done', 'tool:post',
    'tool:pre', 'tool get_weather', 'tool get_weather done', 'tool:post']);
  assert.deepEqual(sequential.tools.map((t) => t.tool_call_id), ['call_a', 'call_b']);
  fake.replies = [calls(['call_a', { city: 'A' }], ['call_b', { city: 'B' }]), text('done')];
  const parallel = await run({ tool: slow });
  assert.deepEqual(parallel.log.filter((l) => l.startsWith('tool ')).slice(0, 2), ['tool get_weather', 'tool get_weather']);
});

test('an ephemeral injection lands in that request only; a kept one stays in the history', async () => {
  fake.replies = [calls(['call_1', { city: 'Paris' }]), text('ok')];
  const reply = (event, data) => {
    if (event === 'provider:request' && data.iteration === 1) return { action: 'inject_context', context_injection: 'Answer in Celsius.', ephemeral: true };
    if (event === 'prompt:submit') return { action: 'inject_context', context_injection: 'Be brief.', context_injection_role: 'user' };
    return undefined;
  };
  await run({ reply });
  const last = (p) => p.prompt.at(-1);
  assert.deepEqual(last(fake.params[0]), { role: 'system', content: 'Answer in Celsius.' });
  assert.ok(!JSON.stringify(fake.params[1].prompt).includes('Celsius'), 'not in the next request');
  assert.ok(fake.params.every((p) => JSON.stringify(p.prompt).includes('Be brief.')), 'the kept one is in every request');
});

test('a failing tool endpoint is tool:error execution_failed, and the model reads the error', async () => {
  fake.replies = [calls(['call_1', { city: 'Paris' }]), text('sorry')];
  const { events, state } = await run({ tool: () => ({ status: 500, body: { error: 'down' } }) });
  const [err] = dataOf(events, 'tool:error');
  assert.equal(err.error.type, 'execution_failed');
  assert.match(err.error.message, /HTTP 500/);
  assert.match(state.history.at(-2).content[0].output, /^Error: tool endpoint returned HTTP 500/);
});

test('on Gemini a failed call goes to the model as an error output, a result as text; other wires send the text', async () => {
  const gemini = session({ providers: [{ name: 'primary', api: 'gemini', base_url: 'http://127.0.0.1:9/p/primary/v1beta', model: 'gemini-ock', priority: 1 }] });
  const failing = (name, call) => (call.tool_call_id === 'call_2' ? { status: 500, body: { error: 'down' } } : { success: true, output: '15 degrees', error: null });
  fake.replies = [calls(['call_1', { city: 'Paris' }], ['call_2', { city: 'Lyon' }]), text('half')];
  const { state } = await run({ doc: gemini, tool: failing });
  const outputs = state.history.at(-2).content.map((r) => r.output);
  assert.deepEqual(outputs[0], { type: 'text', value: '15 degrees' });
  assert.equal(outputs[1].type, 'error-text');
  assert.match(outputs[1].value, /^Error: tool endpoint returned HTTP 500/);

  fake.replies = [calls(['call_1', { city: 'Paris' }], ['call_2', { city: 'Lyon' }]), text('half')];
  const openai = await run({ tool: failing });
  assert.deepEqual(openai.state.history.at(-2).content.map((r) => typeof r.output), ['string', 'string']);
});

test('the history is kept across prompts', async () => {
  fake.replies = [text('15 degrees'), text('You are welcome')];
  const { events } = await run({ doc: session({ prompts: ['Weather?', 'Thanks!'] }) });
  const second = JSON.stringify(fake.params[1].prompt);
  assert.ok(second.includes('Weather?') && second.includes('15 degrees') && second.includes('Thanks!'));
  assert.deepEqual(dataOf(events, 'orchestrator:complete').map((c) => c.status), ['success', 'success']);
});

test('streaming: provider:stream per delta, the wire finish reason, a cut stream is a retryable provider:error', async () => {
  const doc = session({ config: { streaming: true, mode: 'streaming' } });
  fake.replies = [{ stream: [
    { type: 'raw', rawValue: { choices: [{ delta: { content: '15 ' } }] } },
    { type: 'text-delta', delta: '15 ' },
    { type: 'text-delta', delta: 'degrees' },
    { type: 'raw', rawValue: { choices: [{ finish_reason: 'stop' }] } },
    { type: 'finish', finishReason: 'stop', usage },
  ] }];
  const ok = await run({ doc });
  assert.deepEqual(dataOf(ok.events, 'provider:stream').map((d) => d.delta), ['15 ', 'degrees']);
  assert.deepEqual(dataOf(ok.events, 'provider:response')[0], { provider: 'primary', iteration: 1, content: '15 degrees', tool_calls: [],
    finish_reason: 'stop', usage: { input_tokens: 12, output_tokens: 3 } });
  assert.equal(completion(ok.events).status, 'success');

  fake.replies = [{ stream: [{ type: 'text-delta', delta: '15 ' }] }];
  const cut = await run({ doc });
  assert.deepEqual(dataOf(cut.events, 'provider:error'), [{ provider: 'primary', iteration: 1, attempt: 1,
    error: { type: 'stream_error', message: 'the stream ended without a finish part' }, retryable: true, status_code: null }]);
  assert.equal(dataOf(cut.events, 'provider:response').length, 0);

  // SPEC.md 5.7: an error inside a stream is retryable, whatever the error's own class says.
  fake.replies = [{ stream: [{ type: 'text-delta', delta: '15 ' }, { type: 'error', error: Object.assign(new Error('Invalid JSON chunk'), { name: 'AI_JSONParseError' }) }] }];
  const broken = await run({ doc });
  assert.deepEqual(dataOf(broken.events, 'provider:error'), [{ provider: 'primary', iteration: 1, attempt: 1,
    error: { type: 'malformed_response', message: 'Invalid JSON chunk' }, retryable: true, status_code: null }]);
});

test('a stream the provider finishes as interrupted is a broken reply: provider:error, status error, its step not stored', async () => {
  // ai 7's providers end a stream cut before its completion signal with finish reason
  // {unified: 'interrupted'}; the framework then runs none of its calls and ends the loop.
  const doc = session({ config: { streaming: true, mode: 'streaming' } });
  fake.replies = [{ stream: [
    { type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input: '{"city":"Paris"}' },
    { type: 'finish', finishReason: { unified: 'interrupted', raw: undefined }, usage },
  ] }];
  const { events, tools, state } = await run({ doc });
  assert.deepEqual(dataOf(events, 'provider:error'), [{ provider: 'primary', iteration: 1, attempt: 1,
    error: { type: 'stream_error', message: 'the stream ended without a completion signal' }, retryable: true, status_code: null }]);
  assert.equal(dataOf(events, 'provider:response').length, 0);
  assert.deepEqual(completion(events), { orchestrator: ORCHESTRATOR, turn_count: 1, status: 'error',
    error: { type: 'stream_error', message: 'the stream ended without a completion signal' } });
  assert.equal(dataOf(events, 'prompt:complete').length, 0);
  assert.deepEqual(state.history.map((m) => m.role), ['user'], 'the broken step is not stored');
  assert.ok(tools.length <= 1);
});

test('a stream broken off by the SIGINT is provider:error cancelled, not retryable, whatever the error says', async () => {
  // The SDK rethrows the abort's reason, client.js's Error('SIGINT'), a plain Error: the bridge
  // reads the execute's signal, not the error's name (SPEC.md 5.10 step 3).
  const doc = session({ config: { streaming: true, mode: 'streaming' } });
  const controller = new AbortController();
  const reply = (event) => {
    if (event === 'provider:stream') controller.abort(new Error('SIGINT'));
    return undefined;
  };
  fake.replies = [{ stream: [{ type: 'text-delta', delta: '15 ' }, { type: 'error', error: new Error('SIGINT') }] }];
  const { events } = await run({ doc, reply, signal: controller.signal });
  assert.deepEqual(dataOf(events, 'provider:error'), [{ provider: 'primary', iteration: 1, attempt: 1,
    error: { type: 'cancelled', message: 'SIGINT' }, retryable: false, status_code: null }]);
  assert.equal(completion(events).status, 'cancelled');
});

test('the session model: the first provider by priority, on its own wire, with the traced fetch', () => {
  const doc = session({ providers: [
    { name: 'second', api: 'openai', base_url: 'http://127.0.0.1:9/p/second/v1', model: 'm2', priority: 2 },
    { name: 'first', api: 'anthropic', base_url: 'http://127.0.0.1:9/p/first', model: 'm1', priority: 1 },
  ] });
  const client = { tracedFetch: () => 'traced' };
  const { provider, model } = sessionModel(doc, client);
  assert.equal(provider.name, 'first');
  assert.equal(model.provider, 'anthropic.messages');
  assert.equal(model.settings.baseURL, 'http://127.0.0.1:9/p/first/v1');
  assert.equal(model.settings.fetch, 'traced');
  assert.equal(sessionModel(session({ providers: [] }), client), null);
});

test('the session model on the Responses and Gemini wires; the Responses request is sent with store false', async () => {
  const client = { tracedFetch: () => 'traced' };
  const on = (api, base) => session({ providers: [{ name: 'primary', api, base_url: base, model: 'm', priority: 1 }] });
  const responses = sessionModel(on('responses', 'http://127.0.0.1:9/p/primary/v1'), client).model;
  assert.equal(responses.provider, 'openai.responses');
  assert.equal(responses.settings.baseURL, 'http://127.0.0.1:9/p/primary/v1');
  const gemini = sessionModel(on('gemini', 'http://127.0.0.1:9/p/primary'), client).model;
  assert.equal(gemini.provider, 'google.generative-ai');
  assert.equal(gemini.settings.baseURL, 'http://127.0.0.1:9/p/primary/v1beta');
  assert.equal(gemini.settings.fetch, 'traced');

  fake.replies = [{ ...text('15 degrees'), response: { body: { status: 'completed' } } }];
  const { events } = await run({ doc: on('responses', 'http://127.0.0.1:9/p/primary/v1') });
  assert.deepEqual(fake.params[0].providerOptions, { openai: { store: false } });
  assert.equal(dataOf(events, 'provider:response')[0].finish_reason, 'completed');
});
