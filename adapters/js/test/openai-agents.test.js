// The OpenAI Agents SDK bridge under node --test, with the SDK replaced by
// test/fakes/openai-agents.js (no registry, no SDK installed): how its Model wrapper, its tool
// wrappers and the Runner's toolErrorFormatter turn what the SDK does into ock/1 events, and how
// it applies the HookResults.
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import './fakes/register.js';
import { drive, session, dataOf, completion, sleep } from './harness.js';

const { fake } = await import('./fakes/openai-agents.js');
const { executeOpenAIAgents, newState, ORCHESTRATOR } = await import('../src/openai-agents.js');

/**
 * A Model reply: the raw Responses body in providerData (the SDK keeps the reply there), the
 * SDK's items in output.
 */
function reply({ content = '', calls = [], status = 'completed' }) {
  const args = (a) => (typeof a === 'string' ? a : JSON.stringify(a));
  return {
    providerData: {
      status,
      output: [
        ...(content ? [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: content }] }] : []),
        ...calls.map(([id, name, a]) => ({ type: 'function_call', call_id: id, name, arguments: args(a) })),
      ],
      usage: { input_tokens: 20, output_tokens: 5 },
    },
    output: [
      ...(content ? [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: content }] }] : []),
      ...calls.map(([id, name, a]) => ({ type: 'function_call', callId: id, name, arguments: args(a) })),
    ],
  };
}
/** The bridge speaks the Responses wire only: the session's provider is on it. */
const PROVIDERS = [{ name: 'primary', api: 'responses', base_url: 'http://127.0.0.1:9/p/primary/v1', model: 'gpt-ock', priority: 1 }];
const doc = (over = {}) => session({ providers: PROVIDERS, ...over });
const run = ({ doc: d = doc(), ...opts } = {}) => drive(executeOpenAIAgents, newState, { doc: d, ...opts });
/** The tool results the SDK's session holds. */
const toolOutputs = async (state) => (await state.session.getItems()).filter((i) => i.type === 'function_call_result').map((i) => i.output);

beforeEach(() => {
  fake.replies = [];
  fake.requests = [];
  fake.runners = [];
});

test('a tool round: the events in order, with the fields of the raw reply', async () => {
  fake.replies = [reply({ calls: [['call_1', 'get_weather', { city: 'Paris' }]] }), reply({ content: '15 degrees in Paris' })];
  const { events, tools, state } = await run();
  assert.deepEqual(events.map((e) => e.event), ['prompt:submit', 'provider:request', 'provider:response', 'tool:pre', 'tool:post',
    'provider:request', 'provider:response', 'prompt:complete', 'orchestrator:complete']);
  assert.deepEqual(dataOf(events, 'provider:request').map((d) => d.iteration), [1, 2]);
  assert.deepEqual(dataOf(events, 'provider:response')[0], { provider: 'primary', iteration: 1, content: '',
    tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }], finish_reason: 'completed', usage: { input_tokens: 20, output_tokens: 5 } });
  const ids = { tool_call_id: 'call_1', tool_name: 'get_weather', parallel_group_id: 'pg-0-1' };
  assert.deepEqual(dataOf(events, 'tool:pre'), [{ ...ids, tool_input: { city: 'Paris' } }]);
  assert.deepEqual(tools.map((t) => [t.tool_call_id, t.input]), [['call_1', { city: 'Paris' }]]);
  assert.deepEqual(dataOf(events, 'tool:post')[0].result, { success: true, output: '15 degrees', error: null });
  assert.deepEqual(await toolOutputs(state), ['15 degrees']);
  assert.deepEqual(dataOf(events, 'prompt:complete'), [{ response: '15 degrees in Paris' }]);
  assert.deepEqual(completion(events), { orchestrator: ORCHESTRATOR, turn_count: 2, status: 'success' });
  const [runner] = fake.runners;
  assert.equal(runner.options.toolNotFoundBehavior, 'return_error_to_model');
  assert.equal(runner.options.tracingDisabled, true);
});

test('tool:pre deny and modify are applied before the tool parses its input', async () => {
  fake.replies = [reply({ calls: [['call_1', 'get_weather', { city: 'Paris' }], ['call_2', 'get_weather', { city: 'Rome' }]] }), reply({ content: 'ok' })];
  const answer = (event, data) => {
    if (event !== 'tool:pre') return undefined;
    return data.tool_call_id === 'call_1' ? { action: 'deny', reason: 'Not Paris' } : { action: 'modify', data: { tool_input: { city: 'Lyon' } } };
  };
  const { events, tools, state } = await run({ reply: answer });
  assert.deepEqual(tools.map((t) => [t.tool_call_id, t.input]), [['call_2', { city: 'Lyon' }]]);
  assert.deepEqual(dataOf(events, 'tool:error').map((d) => [d.tool_call_id, d.error]), [['call_1', { type: 'denied', message: 'Not Paris' }]]);
  assert.deepEqual(dataOf(events, 'tool:post').map((d) => d.tool_input), [{ city: 'Lyon' }]);
  assert.deepEqual(await toolOutputs(state), ['Error: denied: Not Paris', '15 degrees']);
});

test('a call to a tool the agent lacks: tool:pre with the response arguments, then tool:error not_found', async () => {
  fake.replies = [reply({ calls: [['call_9', 'get_time', { zone: 'UTC' }]] }), reply({ content: 'no clock' })];
  const { events, tools, state } = await run();
  assert.deepEqual(tools, []);
  assert.deepEqual(dataOf(events, 'tool:pre'), [{ tool_call_id: 'call_9', tool_name: 'get_time', parallel_group_id: 'pg-0-1', tool_input: { zone: 'UTC' } }]);
  assert.deepEqual(dataOf(events, 'tool:error')[0].error, { type: 'not_found', message: "tool 'get_time' not found" });
  assert.deepEqual(await toolOutputs(state), ["Error: tool 'get_time' not found"]);
});

test('a provider:request deny: the wrapped model is not asked, status incomplete denied', async () => {
  fake.replies = [reply({ content: 'never' })];
  const { events } = await run({ reply: (event) => (event === 'provider:request' ? { action: 'deny', reason: 'No budget' } : undefined) });
  assert.equal(fake.requests.length, 0);
  assert.deepEqual(dataOf(events, 'prompt:complete'), [{ response: 'Denied: No budget' }]);
  assert.deepEqual(completion(events), { orchestrator: ORCHESTRATOR, turn_count: 0, status: 'incomplete', reason: 'denied' });
});

test('a kept injection on tool:post goes after the results of its round, in later requests and the session', async () => {
  fake.replies = [reply({ calls: [['call_1', 'get_weather', { city: 'Paris' }], ['call_2', 'get_weather', { city: 'Rome' }]] }),
    reply({ content: 'ok' })];
  const note = { role: 'user', content: 'KEPT-NOTE' };
  const { state } = await run({
    reply: (event, data) => (event === 'tool:post' && data.tool_call_id === 'call_1'
      ? { action: 'inject_context', context_injection: 'KEPT-NOTE', context_injection_role: 'user' } : undefined),
  });
  const kinds = (items) => items.map((i) => (i === note || i.content === 'KEPT-NOTE' ? 'note' : i.type ?? i.role));
  assert.deepEqual(kinds(fake.requests[1].input), ['user', 'function_call', 'function_call', 'function_call_result', 'function_call_result', 'note']);
  assert.deepEqual(kinds(await state.session.getItems()),
    ['user', 'function_call', 'function_call', 'function_call_result', 'function_call_result', 'note', 'message']);
});

test('withKept: a provider:request anchor is a count of items; a call not answered yet puts the item last', async () => {
  const { withKept } = await import('../src/openai-agents.js');
  assert.deepEqual(withKept(['a', 'b', 'c'], [[1, 'K']]), ['a', 'K', 'b', 'c']);
  assert.deepEqual(withKept(['a'], [['call_9', 'K']]), ['a', 'K']);
  assert.deepEqual(withKept(['a'], []), ['a']);
});

test('an ephemeral injection is appended to that request input only', async () => {
  fake.replies = [reply({ calls: [['call_1', 'get_weather', { city: 'Paris' }]] }), reply({ content: 'ok' })];
  await run({ reply: (event, data) => (event === 'provider:request' && data.iteration === 1 ? { action: 'inject_context', context_injection: 'Use Celsius.', ephemeral: true } : undefined) });
  assert.deepEqual(fake.requests[0].input.at(-1), { role: 'system', content: 'Use Celsius.' });
  assert.ok(!JSON.stringify(fake.requests[1].input).includes('Celsius'));
});

test('a provider error: provider:error from the thrown error, then status error', async () => {
  fake.replies = [Object.assign(new Error('Service Unavailable'), { status: 503 })];
  const { events } = await run();
  assert.deepEqual(dataOf(events, 'provider:error'), [{ provider: 'primary', iteration: 1, attempt: 1,
    error: { type: 'http_error', message: 'HTTP 503: Service Unavailable' }, retryable: true, status_code: 503 }]);
  assert.deepEqual(completion(events).status, 'error');
});

test('a provider error after a tool round: the round stays in the session, as the last request had it', async () => {
  fake.replies = [reply({ calls: [['call_1', 'get_weather', { city: 'Paris' }]] }), Object.assign(new Error('Service Unavailable'), { status: 503 })];
  const { events, state } = await run();
  assert.equal(completion(events).status, 'error');
  assert.deepEqual(await toolOutputs(state), ['15 degrees']);
  assert.deepEqual((await state.session.getItems()).map((i) => i.type ?? i.role), ['user', 'function_call', 'function_call_result']);
});

test('MaxTurnsExceededError: incomplete max_iterations, the last content as the response, the run state kept', async () => {
  fake.replies = [reply({ content: 'checking', calls: [['call_1', 'get_weather', { city: 'Paris' }]] })];
  const { events, state } = await run({ doc: doc({ config: { max_iterations: 1 } }) });
  assert.deepEqual(dataOf(events, 'prompt:complete'), [{ response: 'checking' }]);
  assert.deepEqual(completion(events), { orchestrator: ORCHESTRATOR, turn_count: 1, status: 'incomplete', reason: 'max_iterations' });
  assert.deepEqual(await toolOutputs(state), ['15 degrees'], 'the history is the one the error carries');
});

test('parallel_tools false is the Runner at one function tool at a time', async () => {
  const slow = async () => { await sleep(60); return { success: true, output: 'x', error: null }; };
  fake.replies = [reply({ calls: [['call_a', 'get_weather', { city: 'A' }], ['call_b', 'get_weather', { city: 'B' }]] }), reply({ content: 'done' })];
  const { log } = await run({ doc: doc({ config: { parallel_tools: false } }), tool: slow });
  assert.equal(fake.runners[0].options.toolExecution.maxFunctionToolConcurrency, 1);
  assert.deepEqual(log.filter((l) => l.startsWith('tool')), ['tool:pre', 'tool get_weather', 'tool get_weather done', 'tool:post',
    'tool:pre', 'tool get_weather', 'tool get_weather done', 'tool:post']);
  fake.replies = [reply({ content: 'done' })];
  await run();
  assert.equal(fake.runners[1].options.toolExecution.maxFunctionToolConcurrency, null);
});

test('the prologue: an empty prompt and a provider on another wire (Chat Completions too) end with status error', async () => {
  const empty = await run({ doc: doc({ prompts: ['  '] }) });
  assert.deepEqual(completion(empty.events).error, { type: 'invalid_input', message: 'the prompt is empty' });
  const anthropic = await run({ doc: doc({ providers: [{ name: 'claude', api: 'anthropic', base_url: 'http://127.0.0.1:9/p/claude', model: 'c', priority: 1 }] }) });
  assert.equal(completion(anthropic.events).error.type, 'no_provider');
  assert.equal(dataOf(anthropic.events, 'provider:request').length, 0);
  const chat = await run({ doc: session() });
  assert.deepEqual(completion(chat.events).error, { type: 'no_provider', message: 'the bridge speaks the responses wire only; provider primary is openai' });
});

test('arguments that do not parse: the Runner answers the call; its toolUseBehavior reports tool:pre and tool:error before the next request', async () => {
  fake.replies = [reply({ calls: [['call_1', 'get_weather', '{"city": ']] }), reply({ content: 'sorry' })];
  const { events, tools } = await run();
  assert.deepEqual(tools, []);
  const ids = { tool_call_id: 'call_1', tool_name: 'get_weather', parallel_group_id: 'pg-0-1' };
  assert.deepEqual(dataOf(events, 'tool:pre'), [{ ...ids, tool_input: '{"city": ' }]);
  assert.deepEqual(dataOf(events, 'tool:error'), [{ ...ids, tool_input: '{"city": ',
    error: { type: 'invalid_arguments', message: 'the arguments are not valid JSON; the Runner did not run the tool' } }]);
  assert.deepEqual(events.map((e) => e.event), ['prompt:submit', 'provider:request', 'provider:response', 'tool:pre', 'tool:error',
    'provider:request', 'provider:response', 'prompt:complete', 'orchestrator:complete']);
});
