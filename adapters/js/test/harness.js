// What the bridges' unit tests share: a stand-in for the mock's ock/1 endpoints (fake-server.js)
// serving a complete session document, recording each event and tool call in order, answering
// events and tools from the test's functions; and a driver that runs a bridge's execute once per
// prompt over it, as runSession does.
import { OckClient } from '../src/client.js';
import { startFake } from './fake-server.js';

/** A session document with every default filled in (SPEC.md 7.3), changed by `over`. */
export function session(over = {}) {
  return {
    protocol: 'ock/1',
    scenario: 'bridge-unit',
    trace_id: 'ock-0badc0de',
    prompts: ['What is the weather in Paris?'],
    config: {
      max_iterations: 10, parallel_tools: true, streaming: false, error_strategy: 'continue', max_retries: 2,
      retry_base_delay_ms: 1000, retry_max_delay_ms: 60000, retry_jitter: 0.1, tool_timeout_ms: 30000,
      request_timeout_ms: 60000, mode: 'basic', ...over.config,
    },
    providers: [{ name: 'primary', api: 'openai', base_url: 'http://127.0.0.1:9/p/primary/v1', model: 'gpt-ock', priority: 1 }],
    tools: [{ name: 'get_weather', description: 'Current weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
    ...Object.fromEntries(Object.entries(over).filter(([k]) => k !== 'config')),
  };
}

const WEATHER = { success: true, output: '15 degrees', error: null };

/**
 * Runs `execute(ctx, state)` for each prompt of `doc` against a fake ock/1 server.
 * `reply(event, data)` answers an event (undefined: continue); `tool(name, body)` answers a tool
 * call (default: a ToolResult "15 degrees"). Resolves to `{events, tools, log, results}`: `log`
 * is events and tool calls in the order they arrived (`tool <name>` entries, then `tool <name>
 * done` when answered).
 */
export async function drive(execute, newState, { doc = session(), reply = () => undefined, tool = () => WEATHER, signal } = {}) {
  const events = [];
  const tools = [];
  const log = [];
  const routes = {
    'GET /ock/v1/session': { body: doc },
    'POST /ock/v1/events': ({ body }) => {
      const { event, data } = JSON.parse(body);
      events.push({ event, data });
      log.push(event);
      return { body: reply(event, data) ?? { action: 'continue' } };
    },
  };
  for (const t of doc.tools) {
    routes[`POST /ock/v1/tools/${t.name}`] = async ({ body, headers }) => {
      const call = { name: t.name, ...JSON.parse(body), trace: headers['x-ock-trace-id'] };
      tools.push(call);
      log.push(`tool ${t.name}`);
      const result = await tool(t.name, call);
      log.push(`tool ${t.name} done`);
      return result.status ? result : { body: result };
    };
  }
  const fake = await startFake(routes);
  try {
    const client = await OckClient.connect(fake.url);
    const state = newState();
    const results = [];
    for (const [index, prompt] of doc.prompts.entries())
      results.push(await execute({ prompt, index, client, session: client.session, signal: signal ?? new AbortController().signal }, state));
    return { events, tools, log, results, state };
  } finally {
    await fake.close();
  }
}

/** The data of the events named `name`, in order. */
export const dataOf = (events, name) => events.filter((e) => e.event === name).map((e) => e.data);

/** The last orchestrator:complete's data. */
export const completion = (events) => dataOf(events, 'orchestrator:complete').at(-1);

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
