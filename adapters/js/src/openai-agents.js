// The OpenAI Agents SDK bridge: runs the SDK's Runner over an Agent whose model is the Chat
// Completions model (OpenAIChatCompletionsModel over an official `openai` client pointed at the
// session's provider), with the session's tools as function tools and maxTurns from
// max_iterations, and reports what the framework does as ock/1 events.
//
// Where the events come from:
// - prompt:submit, prompt:complete, orchestrator:complete: around the Runner.run call.
// - provider:request: a Model that wraps the Chat Completions model; its getResponse sends the
//   event and awaits the reply before it hands the request to the wrapped model, so a deny stops
//   the request before it is built (the run is ended with an error the bridge recognises) and an
//   ephemeral injection is appended to that request's input only.
// - provider:response, provider:error: the same wrapper, from what the wrapped model returned
//   (finish_reason and usage read from the raw Chat Completions reply the model keeps) or threw.
// - tool:pre: the function tool's own invoke, wrapped: the Runner calls it once per call it
//   decided to run, before the tool parses its input; deny (the tool is not invoked) and modify
//   (the replacement input is what the tool receives) are applied there.
// - tool:post, tool:error: the tool's execute, around the tools endpoint.
//
// What the framework does not do, the bridge does not do either; manifests/openai-agents.json says
// what it cannot apply, and make test-frameworks grades the rest. The openai client's own retries
// are off (maxRetries 0) and the Runner's opt-in retries are left off: neither has a hook that
// runs between the failure and the wait.
import OpenAI from 'openai';
import { Agent, Runner, tool, OpenAIChatCompletionsModel, MaxTurnsExceededError, setTracingDisabled } from '@openai/agents';
import { denies, ToolCallError, TRACE_HEADER } from './client.js';
import { isObject, denyReason, parseArguments, resultText, injection, Denied, deniedIn, providerError, openaiPrologue } from './bridge.js';

export const ORCHESTRATOR = 'openai-agents-bridge';

// The SDK exports traces to OpenAI by default; a bridge under test talks to the mock only.
setTracingDisabled(true);

/** An inject_context text as an input item of the SDK (its protocol's message shapes). */
function inputMessage({ role, text }) {
  if (role === 'assistant') return { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] };
  if (role === 'user') return { role: 'user', content: text };
  return { role: 'system', content: text };
}

const asItems = (input) => (typeof input === 'string' ? [{ role: 'user', content: input }] : [...input]);

/**
 * A Model (the SDK's interface) that reports each request of the wrapped model: provider:request
 * before it, then provider:response or provider:error. `run` is the execute's counters.
 */
class ReportingModel {
  constructor(inner, { client, provider, run }) {
    this.inner = inner;
    this.client = client;
    this.provider = provider;
    this.run = run;
  }

  getRetryAdvice(args) {
    return this.inner.getRetryAdvice?.(args);
  }

  async getResponse(request) {
    const { client, provider, run } = this;
    run.iteration += 1;
    const iteration = run.iteration;
    const reply = await client.emit('provider:request', { provider: provider.name, model: provider.model, iteration, attempt: 1 });
    if (denies(reply)) throw new Denied(denyReason(reply));
    const inj = injection(reply);
    if (inj && inj.ephemeral) run.ephemeral.push(inj);
    const extra = run.ephemeral.splice(0).map(inputMessage);
    const sent = extra.length ? { ...request, input: [...asItems(request.input), ...extra] } : request;
    let res;
    try {
      res = await this.inner.getResponse(sent);
    } catch (e) {
      run.turns += 1;
      await client.emit('provider:error', { provider: provider.name, iteration, attempt: 1, ...providerError(e) });
      throw e;
    }
    run.turns += 1;
    const raw = res.providerData;
    const choice = raw?.choices?.[0];
    const message = choice?.message ?? {};
    const calls = (message.tool_calls ?? [])
      .filter((c) => c.type === 'function')
      .map((c) => ({ id: c.id, name: c.function?.name, arguments: parseArguments(c.function?.arguments ?? '') }));
    for (const c of calls) run.callInputs.set(c.id, c.arguments);
    run.lastContent = typeof message.content === 'string' ? message.content : '';
    await client.emit('provider:response', {
      provider: provider.name, iteration, content: run.lastContent, tool_calls: calls,
      finish_reason: choice?.finish_reason ?? 'unknown',
      usage: { input_tokens: raw?.usage?.prompt_tokens, output_tokens: raw?.usage?.completion_tokens },
    });
    run.groups += 1;
    return res;
  }

  // Streaming is not bridged (capability streaming is not declared): the Runner's streamed
  // path is never taken by this bridge.
  getStreamedResponse() {
    throw new Error('ock-openai-agents: streaming is not bridged');
  }
}

/**
 * The session's tools as function tools. `execute` runs the tools endpoint; the tool's invoke is
 * wrapped so that tool:pre is sent before the tool parses its input.
 */
function sessionTools({ client, session, state, run, signal }) {
  return session.tools.map((spec) => {
    const base = (callId) => ({ tool_call_id: callId, tool_name: spec.name, parallel_group_id: `pg-${state.executes}-${run.groups}` });
    const t = tool({
      name: spec.name,
      description: spec.description ?? '',
      parameters: spec.input_schema,
      strict: false,
      execute: async (input, _ctx, details) => {
        const callId = details?.toolCall?.callId ?? '';
        const ids = base(callId);
        let result;
        try {
          result = await client.callTool(spec.name, callId, input, { signal: details?.signal ?? signal, timeoutMs: session.config.tool_timeout_ms });
        } catch (e) {
          const type = e instanceof ToolCallError ? e.type : 'execution_failed';
          await client.emit('tool:error', { ...ids, error: { type, message: e.message }, tool_input: input });
          return type === 'cancelled' ? 'Error: cancelled' : `Error: ${e.message}`;
        }
        const post = await client.emit('tool:post', { ...ids, result, tool_input: input });
        const inj = injection(post);
        if (inj && inj.ephemeral) run.ephemeral.push(inj);
        return resultText(result);
      },
    });
    const frameworkInvoke = t.invoke;
    t.invoke = async (runContext, rawInput, details) => {
      const callId = details?.toolCall?.callId ?? '';
      const ids = base(callId);
      const toolInput = parseArguments(rawInput);
      const pre = await client.emit('tool:pre', { ...ids, tool_input: toolInput });
      if (denies(pre)) {
        await client.emit('tool:error', { ...ids, error: { type: 'denied', message: denyReason(pre) }, tool_input: toolInput });
        return `Error: denied: ${denyReason(pre)}`;
      }
      let sent = rawInput;
      if (pre.action === 'modify' && isObject(pre.data?.tool_input)) sent = JSON.stringify(pre.data.tool_input);
      return frameworkInvoke(runContext, sent, details);
    };
    return t;
  });
}

/**
 * The Runner's toolErrorFormatter for a call to a tool the agent lacks: the only moment the Runner
 * hands such a call to the caller, after it decided not to run it. tool:pre (with the arguments of
 * the provider:response) and tool:error are sent there, and the text returned is the one SPEC.md
 * 5.11 gives the model, or the denial when tool:pre denies.
 */
async function reportToolNotFound(client, state, run, { toolName, callId }) {
  const ids = { tool_call_id: callId, tool_name: toolName, parallel_group_id: `pg-${state.executes}-${run.groups}` };
  const toolInput = run.callInputs.get(callId) ?? {};
  const pre = await client.emit('tool:pre', { ...ids, tool_input: toolInput });
  if (denies(pre)) {
    await client.emit('tool:error', { ...ids, error: { type: 'denied', message: denyReason(pre) }, tool_input: toolInput });
    return `Error: denied: ${denyReason(pre)}`;
  }
  const message = `tool '${toolName}' not found`;
  await client.emit('tool:error', { ...ids, error: { type: 'not_found', message }, tool_input: toolInput });
  return `Error: ${message}`;
}

/**
 * One execute: the events of SPEC.md section 4 around one Runner.run call. `state` carries what
 * lives across executes: the SDK's input items (the history) and the execute counter.
 */
export async function executeOpenAIAgents({ prompt, client, session, signal }, state) {
  const config = session.config;
  const run = { turns: 0, iteration: 0, ephemeral: [], groups: 0, lastContent: '', callInputs: new Map() };
  const complete = (status, extra = {}) =>
    client.emit('orchestrator:complete', { orchestrator: ORCHESTRATOR, turn_count: run.turns, status, ...extra });

  try {
    const { submit, provider, ended } = await openaiPrologue({ prompt, client, session }, complete);
    if (ended) return ended;
    const input = [...state.history, { role: 'user', content: prompt }];
    const injected = injection(submit);
    if (injected && !injected.ephemeral) input.push(inputMessage(injected));
    if (injected && injected.ephemeral) run.ephemeral.push(injected);

    const openai = new OpenAI({
      apiKey: process.env.OPENAI_API_KEY || 'ock-dummy-key',
      baseURL: provider.base_url,
      maxRetries: 0,
      timeout: config.request_timeout_ms,
      defaultHeaders: { [TRACE_HEADER]: client.traceId },
    });
    const model = new ReportingModel(new OpenAIChatCompletionsModel(openai, provider.model), { client, provider, run });
    const agent = new Agent({ name: ORCHESTRATOR, model, tools: sessionTools({ client, session, state, run, signal }) });
    const runner = new Runner({
      tracingDisabled: true,
      toolNotFoundBehavior: 'return_error_to_model',
      toolErrorFormatter: (args) => (args.kind === 'tool_not_found' ? reportToolNotFound(client, state, run, args) : undefined),
      toolExecution: { maxFunctionToolConcurrency: config.parallel_tools ? null : 1 },
    });

    let result;
    try {
      result = await runner.run(agent, input, { maxTurns: config.max_iterations, signal });
    } catch (e) {
      // What the context already holds stays (SPEC.md 5.14): the SDK's state at the failure when
      // the error carries one (MaxTurnsExceededError does). A provider error or a deny carries
      // none, so the run's items are lost with it, a framework finding the baseline lists.
      state.history = e?.state?.history ?? input;
      const denied = deniedIn(e);
      if (denied) {
        await client.emit('prompt:complete', { response: `Denied: ${denied.reason}` });
        return await complete('incomplete', { reason: 'denied' });
      }
      if (signal.aborted) return await complete('cancelled');
      if (e instanceof MaxTurnsExceededError) {
        await client.emit('prompt:complete', { response: run.lastContent });
        return await complete('incomplete', { reason: 'max_iterations' });
      }
      return await complete('error', { error: providerError(e).error });
    }
    state.history = result.history;
    const text = typeof result.finalOutput === 'string' ? result.finalOutput : JSON.stringify(result.finalOutput ?? '');
    await client.emit('prompt:complete', { response: text });
    return await complete('success');
  } finally {
    state.executes += 1;
  }
}

/** A fresh cross-execute state for executeOpenAIAgents. */
export const newState = () => ({ history: [], executes: 0 });
