// The LangGraph bridge under node --test, with LangGraph and LangChain replaced by
// test/fakes/langgraph.js (no registry, no framework installed): how its completions model and
// its tool wrappers turn what the graph does into ock/1 events, and how it applies the
// HookResults.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import './fakes/register.js';
import { drive, session, dataOf, completion, sleep } from './harness.js';

const { fake } = await import('./fakes/langgraph.js');
const { executeLangGraph, newState, ORCHESTRATOR } = await import('../src/langgraph.js');

const usage = { input_tokens: 30, output_tokens: 4 };
const text = (content) => ({ content, finish_reason: 'stop', usage });
const calls = (...cs) => ({ content: '', finish_reason: 'tool_calls', usage, tool_calls: cs.map(([id, args, name = 'get_weather']) => ({ id, name, args })) });
const run = (opts) => drive(executeLangGraph, newState, opts);

beforeEach(() => {
  fake.replies = [];
  fake.sent = [];
});

test('a tool round: the events in order, with the fields of the generation', async () => {
  fake.replies = [calls(['call_1', { city: 'Paris' }]), text('15 degrees in Paris')];
  const { events, tools } = await run();
  assert.deepEqual(events.map((e) => e.event), ['prompt:submit', 'provider:request', 'provider:response', 'tool:pre', 'tool:post',
    'provider:request', 'provider:response', 'prompt:complete', 'orchestrator:complete']);
  assert.deepEqual(dataOf(events, 'provider:response')[0], { provider: 'primary', iteration: 1, content: '',
    tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }], finish_reason: 'tool_calls', usage });
  const ids = { tool_call_id: 'call_1', tool_name: 'get_weather', parallel_group_id: 'pg-0-1' };
  assert.deepEqual(dataOf(events, 'tool:pre'), [{ ...ids, tool_input: { city: 'Paris' } }]);
  assert.deepEqual(tools.map((t) => [t.tool_call_id, t.input]), [['call_1', { city: 'Paris' }]]);
  assert.deepEqual(dataOf(events, 'tool:post'), [{ ...ids, result: { success: true, output: '15 degrees', error: null }, tool_input: { city: 'Paris' } }]);
  assert.equal(fake.sent[1].at(-1).content, '15 degrees', 'the model reads the result text');
  assert.deepEqual(dataOf(events, 'prompt:complete'), [{ response: '15 degrees in Paris' }]);
  assert.deepEqual(completion(events), { orchestrator: ORCHESTRATOR, turn_count: 2, status: 'success' });
});

test('tool:pre deny and modify are applied before the tool validates its input', async () => {
  fake.replies = [calls(['call_1', { city: 'Paris' }], ['call_2', { city: 'Rome' }]), text('ok')];
  const answer = (event, data) => {
    if (event !== 'tool:pre') return undefined;
    return data.tool_call_id === 'call_1' ? { action: 'deny', reason: 'Not Paris' } : { action: 'modify', data: { tool_input: { city: 'Lyon' } } };
  };
  const { events, tools } = await run({ reply: answer });
  assert.deepEqual(tools.map((t) => [t.tool_call_id, t.input]), [['call_2', { city: 'Lyon' }]]);
  assert.deepEqual(dataOf(events, 'tool:error').map((d) => [d.tool_call_id, d.error]), [['call_1', { type: 'denied', message: 'Not Paris' }]]);
  assert.deepEqual(dataOf(events, 'tool:post').map((d) => d.tool_input), [{ city: 'Lyon' }]);
  assert.deepEqual(fake.sent[1].slice(-2).map((m) => m.content), ['Error: denied: Not Paris', '15 degrees']);
});

test('input the tool schema refuses: tool:error invalid_arguments, the tools endpoint is not called', async () => {
  fake.replies = [calls(['call_1', { town: 'Paris' }]), text('sorry')];
  const { events, tools } = await run();
  assert.deepEqual(tools, []);
  assert.deepEqual(dataOf(events, 'tool:pre').map((d) => d.tool_input), [{ town: 'Paris' }]);
  const [err] = dataOf(events, 'tool:error');
  assert.equal(err.error.type, 'invalid_arguments');
  assert.equal(err.tool_call_id, 'call_1');
});

test('a provider:request deny ends the graph: incomplete denied, the model not asked', async () => {
  fake.replies = [text('never')];
  const { events } = await run({ reply: (event) => (event === 'provider:request' ? { action: 'deny', reason: 'No budget' } : undefined) });
  assert.equal(fake.sent.length, 0);
  assert.deepEqual(dataOf(events, 'prompt:complete'), [{ response: 'Denied: No budget' }]);
  assert.deepEqual(completion(events), { orchestrator: ORCHESTRATOR, turn_count: 0, status: 'incomplete', reason: 'denied' });
});

test('an ephemeral injection reaches that request only; a kept one joins the thread', async () => {
  fake.replies = [calls(['call_1', { city: 'Paris' }]), text('ok')];
  const answer = (event, data) => {
    if (event === 'provider:request' && data.iteration === 1) return { action: 'inject_context', context_injection: 'Use Celsius.', ephemeral: true };
    if (event === 'prompt:submit') return { action: 'inject_context', context_injection: 'Be brief.', context_injection_role: 'user' };
    return undefined;
  };
  await run({ reply: answer });
  assert.equal(fake.sent[0].at(-1).content, 'Use Celsius.');
  assert.equal(fake.sent[0].at(-1).constructor.name, 'SystemMessage');
  assert.ok(!fake.sent[1].some((m) => m.content === 'Use Celsius.'));
  assert.ok(fake.sent.every((msgs) => msgs.some((m) => m.content === 'Be brief.' && m.constructor.name === 'HumanMessage')));
});

test('a provider error: provider:error, then status error', async () => {
  fake.replies = [Object.assign(new Error('Bad Request'), { status: 400 })];
  const { events } = await run();
  assert.deepEqual(dataOf(events, 'provider:error'), [{ provider: 'primary', iteration: 1, attempt: 1,
    error: { type: 'http_error', message: 'HTTP 400: Bad Request' }, retryable: false, status_code: 400 }]);
  assert.equal(completion(events).status, 'error');
});

test('the recursion limit is four supersteps per iteration (pre_model_hook, agent, post_model_hook, tools): max_iterations model calls, then incomplete', async () => {
  fake.replies = [calls(['call_1', { city: 'A' }]), calls(['call_2', { city: 'B' }]), calls(['call_3', { city: 'C' }])];
  const { events } = await run({ doc: session({ config: { max_iterations: 2 } }) });
  assert.equal(dataOf(events, 'provider:request').length, 2);
  assert.deepEqual(completion(events), { orchestrator: ORCHESTRATOR, turn_count: 2, status: 'incomplete', reason: 'max_iterations' });
});

test('parallel_tools false runs the calls of a message one after another, in call order', async () => {
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

test('the conversation is the graph thread: the second prompt sees the first exchange', async () => {
  fake.replies = [text('15 degrees'), text('You are welcome')];
  await run({ doc: session({ prompts: ['Weather?', 'Thanks!'] }) });
  assert.deepEqual(fake.sent[1].map((m) => m.content), ['Weather?', '15 degrees', 'Thanks!']);
});

test('the preModelHook: a call to an unknown tool gets tool:pre and tool:error not_found; a kept tool:post injection joins the next request', async () => {
  fake.replies = [calls(['call_9', { zone: 'UTC' }, 'get_time'], ['call_1', { city: 'Paris' }]), text('ok')];
  const answer = (event) => (event === 'tool:post' ? { action: 'inject_context', context_injection: 'Mind the units.' } : undefined);
  const { events, tools } = await run({ reply: answer });
  assert.deepEqual(tools.map((t) => t.tool_call_id), ['call_1']);
  assert.deepEqual(dataOf(events, 'tool:pre').map((d) => [d.tool_call_id, d.tool_name]), [['call_1', 'get_weather'], ['call_9', 'get_time']]);
  assert.deepEqual(dataOf(events, 'tool:error'), [{ tool_call_id: 'call_9', tool_name: 'get_time', parallel_group_id: 'pg-0-1',
    error: { type: 'not_found', message: "tool 'get_time' not found" }, tool_input: { zone: 'UTC' } }]);
  const second = events.findIndex((e) => e.event === 'provider:request' && e.data.iteration === 2);
  assert.ok(events.findIndex((e) => e.event === 'tool:error') < second, 'reported before the next request');
  assert.equal(fake.sent[1].at(-1).content, 'Mind the units.');
  assert.equal(fake.sent[1].at(-1).constructor.name, 'SystemMessage');
});

const raw = (id, text, name = 'get_weather') => ({ id, name, raw: text, args: undefined });
const rawCalls = (...cs) => ({ content: '', finish_reason: 'tool_calls', usage, tool_calls: cs });

test('the postModelHook: arguments that do not parse get tool:pre with the raw text and tool:error invalid_arguments, not the endpoint', async () => {
  fake.replies = [rawCalls(raw('call_1', '{"city": "Par')), text('sorry')];
  const { events, tools } = await run();
  assert.deepEqual(tools, []);
  const ids = { tool_call_id: 'call_1', tool_name: 'get_weather', parallel_group_id: 'pg-0-1' };
  assert.deepEqual(dataOf(events, 'tool:pre'), [{ ...ids, tool_input: '{"city": "Par' }]);
  assert.deepEqual(dataOf(events, 'tool:error'), [{ ...ids, error: { type: 'invalid_arguments', message: 'not valid JSON: {"city": "Par' },
    tool_input: '{"city": "Par' }]);
  const result = fake.sent[1].at(-1);
  assert.equal(result.tool_call_id, 'call_1');
  assert.equal(result.content, 'Error: invalid arguments: not valid JSON: {"city": "Par');
  assert.equal(completion(events).status, 'success');
});

test('the postModelHook: a tool:pre modify with an object runs the call with it; empty arguments run as {}', async () => {
  fake.replies = [rawCalls(raw('call_1', '{"city": "Par'), raw('call_2', '')), text('done')];
  const answer = (event, data) => (event === 'tool:pre' && data.tool_call_id === 'call_1' ? { action: 'modify', data: { tool_input: { city: 'Paris' } } } : undefined);
  const { events, tools } = await run({ reply: answer });
  assert.deepEqual(tools.map((t) => [t.tool_call_id, t.input]), [['call_1', { city: 'Paris' }], ['call_2', {}]]);
  assert.deepEqual(dataOf(events, 'tool:pre').map((d) => d.tool_input), ['{"city": "Par', {}]);
  assert.deepEqual(dataOf(events, 'tool:error'), []);
  assert.deepEqual(dataOf(events, 'tool:post').map((d) => d.tool_input), [{ city: 'Paris' }, {}]);
});

test('a message with a call that parses and one that does not goes out with both calls as the model sent them', async () => {
  fake.replies = [rawCalls({ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }, raw('call_2', '{bad')), text('done')];
  const { tools } = await run();
  assert.deepEqual(tools.map((t) => t.tool_call_id), ['call_1']);
  const assistant = fake.sent[1].find((m) => m.additional_kwargs?.tool_calls);
  assert.deepEqual(assistant.tool_calls, []);
  assert.deepEqual(assistant.additional_kwargs.tool_calls.map((c) => [c.id, c.function.arguments]), [['call_1', '{"city":"Paris"}'], ['call_2', '{bad']]);
  assert.deepEqual(fake.sent[1].filter((m) => m.tool_call_id).map((m) => m.tool_call_id).sort(), ['call_1', 'call_2']);
});

test('a reply cut at the token limit: its calls get tool:pre with the raw arguments and tool:error, never the endpoint, though they parse; a modify runs one', async () => {
  const cut = (...cs) => ({ content: '', finish_reason: 'length', usage, tool_calls: cs });
  fake.replies = [cut({ id: 'call_1', name: 'get_weather', args: { city: 'Par' } }, { id: 'call_2', name: 'get_weather', args: { city: 'Lyo' } }), text('sorry')];
  const answer = (event, data) => (event === 'tool:pre' && data.tool_call_id === 'call_2' ? { action: 'modify', data: { tool_input: { city: 'Lyon' } } } : undefined);
  const { events, tools } = await run({ reply: answer });
  assert.deepEqual(tools.map((t) => [t.tool_call_id, t.input]), [['call_2', { city: 'Lyon' }]], 'only the call a modify replaced runs');
  assert.deepEqual(dataOf(events, 'tool:pre').map((d) => d.tool_input), ['{"city":"Par"}', '{"city":"Lyo"}']);
  assert.deepEqual(dataOf(events, 'tool:error'), [{ tool_call_id: 'call_1', tool_name: 'get_weather', parallel_group_id: 'pg-0-1',
    error: { type: 'invalid_arguments', message: 'the reply stopped at the output token limit: {"city":"Par"}' }, tool_input: '{"city":"Par"}' }]);
  const results = Object.fromEntries(fake.sent[1].filter((m) => m.tool_call_id).map((m) => [m.tool_call_id, m.content]));
  assert.match(results.call_1, /^Error: invalid arguments: /);
  assert.equal(results.call_2, '15 degrees');
});

test('rounds of calls only the postModelHook answers (no ToolNode superstep) still stop at max_iterations model calls', async () => {
  const bad = (id) => ({ content: '', finish_reason: 'tool_calls', usage, tool_calls: [{ id, name: 'get_weather', raw: '{bad', args: undefined }] });
  fake.replies = [bad('call_1'), bad('call_2'), bad('call_3'), bad('call_4'), text('never')];
  const { events } = await run({ doc: session({ config: { max_iterations: 2 } }) });
  assert.equal(dataOf(events, 'provider:request').length, 2, 'three supersteps a round must not buy a third model call');
  assert.equal(completion(events).status, 'incomplete');
});

test('the postModelHook with parallel_tools false: the calls run one after another, in call order', async () => {
  const slow = async () => { await sleep(60); return { success: true, output: 'x', error: null }; };
  fake.replies = [rawCalls(raw('call_a', ''), raw('call_b', '')), text('done')];
  const { log, tools } = await run({ doc: session({ config: { parallel_tools: false } }), tool: slow });
  assert.deepEqual(log.filter((l) => l.startsWith('tool')), ['tool:pre', 'tool get_weather', 'tool get_weather done', 'tool:post',
    'tool:pre', 'tool get_weather', 'tool get_weather done', 'tool:post']);
  assert.deepEqual(tools.map((t) => t.tool_call_id), ['call_a', 'call_b']);
});

test('repair: what a cancelled invoke leaves in the thread is completed before cancel:completed', async () => {
  const { repair } = await import('../src/langgraph.js');
  const { HumanMessage, AIMessage, ToolMessage, RemoveMessage } = fake.messages;
  const prompt = [new HumanMessage('hi')];
  const closing = (out) => assert.equal(out.at(-1).content, 'The previous operation was cancelled.');
  // Cancelled before the first checkpoint: the prompt, then the closing message.
  let out = repair([], prompt, null, new Map());
  assert.deepEqual(out.slice(0, -1), prompt);
  closing(out);
  // A round cut short: the finished call keeps its result, the other is cancelled.
  const call = new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'get_weather', args: {} }, { id: 'c2', name: 'get_weather', args: {} }] });
  out = repair([...prompt, call], prompt, call, new Map([['c1', '15 degrees']]));
  assert.deepEqual(out.slice(0, -1).map((m) => [m.constructor.name, m.tool_call_id, m.content]),
    [['ToolMessage', 'c1', '15 degrees'], ['ToolMessage', 'c2', 'Error: cancelled']]);
  closing(out);
  assert.ok(out.every((m) => !(m instanceof RemoveMessage)));
  // A reply whose calls were reported but not stored yet is stored with them answered.
  out = repair([prompt[0]], prompt, call, new Map());
  assert.ok(out[0] instanceof AIMessage && out[0].tool_calls.length === 2);
  assert.ok(out[1] instanceof ToolMessage && out[2] instanceof ToolMessage);
  // A final answer stored before prompt:complete went out is removed.
  const answer = new AIMessage({ id: 'a1', content: 'done', response_metadata: { finish_reason: 'stop' } });
  out = repair([prompt[0], answer], prompt, answer, new Map());
  assert.ok(out[0] instanceof RemoveMessage && out[0].id === 'a1');
  closing(out);
});
