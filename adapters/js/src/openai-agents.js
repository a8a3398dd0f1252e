// The OpenAI Agents SDK bridge: runs the SDK's Runner over an Agent whose model is the SDK's
// default, the Responses API model (OpenAIResponsesModel over an official `openai` client pointed
// at the session's provider, provider api `responses`), with the session's tools as function
// tools and maxTurns from max_iterations, and reports what the framework does as ock/1 events.
//
// Where the events come from:
// - prompt:submit, prompt:complete, orchestrator:complete: around the Runner.run call (streamed
//   with `stream: true` when the session streams).
// - provider:request: a Model that wraps the Responses model; its getResponse and
//   getStreamedResponse send the event and await the reply before they hand the request to the
//   wrapped model, so a deny stops the request before it is built (the run is ended with an error
//   the bridge recognises) and an ephemeral injection is appended to that request's input only.
//   A kept injection (provider:request, tool:post) is placed by the same wrapper in every later
//   request of the run (withKept), and in the session once the run has ended.
// - provider:stream, provider:response, provider:error: the same wrapper, from what the wrapped
//   model returned (status and usage read from the raw Responses reply the model keeps), streamed
//   (its text deltas and its response_done event) or threw.
// - tool:pre: the function tool's own invoke, wrapped: the Runner calls it once per call it
//   decided to run, before the tool parses its input; deny (the tool is not invoked) and modify
//   (the replacement input is what the tool receives) are applied there.
// - tool:post, tool:error: the tool's execute, around the tools endpoint.
// - the calls the Runner answers itself: an unknown tool through its toolErrorFormatter, arguments
//   that do not parse through the Agent's toolUseBehavior (called with every result of a round,
//   before the next request): tool:pre and tool:error are sent there for them.
// - cancel:requested, cancel:completed: SIGINT aborts the signal Runner.run was given.
//
// What the framework does not do, the bridge does not do either; manifests/openai-agents.json says
// what it cannot apply, and make test-frameworks grades the rest. The openai client's own retries
// are off (maxRetries 0) and the Runner's opt-in retries are left off: neither has a hook that
// runs between the failure and the wait.
import OpenAI from 'openai';
import { Agent, Runner, tool, OpenAIResponsesModel, MemorySession, MaxTurnsExceededError, setTracingDisabled } from '@openai/agents';
import { denies, TRACE_HEADER } from './client.js';
import {
  isObject, denyReason, parseArguments, injection, callAtEndpoint, Denied, deniedIn, providerError as wireError, openaiPrologue, cancellation, CANCELLED_TEXT,
} from './bridge.js';

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
 * The Runner's items with the run's kept injections in their places (SPEC.md 4.4, 5.3): one from
 * tool:post after the results of its call's round, never between a call and a result; one from
 * provider:request after the items that request was built from. `kept` holds [anchor, item]
 * pairs: the anchor is a callId, or the number of items the request had.
 * @param {any[]} items
 * @param {Array<[string | number, any]>} kept
 */
export function withKept(items, kept) {
  const isResult = (i) => i?.type === 'function_call_result';
  const places = kept.map(([anchor, item], seq) => {
    let at = items.length;
    if (typeof anchor === 'number') at = Math.min(anchor, items.length);
    else {
      const i = items.findIndex((it) => isResult(it) && it.callId === anchor);
      if (i >= 0) for (at = i + 1; at < items.length && isResult(items[at]); at += 1);
    }
    return { at, seq, item };
  });
  places.sort((a, b) => a.at - b.at || a.seq - b.seq);
  const out = [];
  let last = 0;
  for (const { at, item } of places) {
    out.push(...items.slice(last, at), item);
    last = at;
  }
  return [...out, ...items.slice(last)];
}

/** The session's items with the run's kept injections placed: what later executes send. */
async function keepInjections(session, kept) {
  if (!kept.length) return;
  const items = await session.getItems();
  await session.clearSession();
  await session.addItems(withKept(items, kept));
}

/**
 * What the context already held stays when a run ends early (SPEC.md 5.14, 5.10). The SDK saves
 * a run to the session only when it finishes, or at its abort checkpoint; a run that throws, or a
 * streamed one cancelled during a tool round, leaves the session without it. The run's items are
 * still at hand: a streamed run's state (its history, with the results of the calls the cancel
 * cut as the tools answered them), else the input of the last request the model wrapper saw, else
 * the session and this execute's input. A cancel also stores the closing assistant message.
 */
async function keepWhatRan(state, run, { result, input, cancelled }) {
  const session = state.session;
  const history = result?.state?.history;
  const items = Array.isArray(history) && history.length ? history : (run.lastInput ?? [...(await session.getItems()), ...input]);
  const saved = await session.getItems();
  if (saved.length < items.length) {
    await session.clearSession();
    await session.addItems(withKept(items, run.kept));
  } else await keepInjections(session, run.kept);
  if (cancelled) await session.addItems([inputMessage({ role: 'assistant', text: CANCELLED_TEXT })]);
}

/**
 * The provider:error fields of what the model threw: the SDK's ModelBehaviorError (a reply it
 * refuses, such as an incomplete or failed response) is a malformed reply, not a failed
 * connection.
 */
function providerError(e) {
  if (e?.name === 'ModelBehaviorError') return { error: { type: 'malformed_response', message: String(e.message) }, retryable: false, status_code: null };
  return wireError(e);
}

/** The Responses API's status as a finish_reason (SPEC.md 6.10): the reason when incomplete. */
const finishOf = (status, details) => (status === 'incomplete' ? (details?.reason ?? 'incomplete') : (status ?? 'unknown'));

/** provider:response fields of a raw Responses reply (the SDK keeps it as providerData). */
function rawReply(raw) {
  const items = raw?.output ?? [];
  return {
    content: items.filter((i) => i.type === 'message').flatMap((m) => m.content ?? []).filter((c) => c.type === 'output_text').map((c) => c.text).join(''),
    calls: items.filter((i) => i.type === 'function_call').map((c) => ({ id: c.call_id, name: c.name, arguments: parseArguments(c.arguments ?? '') })),
    finish: finishOf(raw?.status, raw?.incomplete_details),
    usage: { input_tokens: raw?.usage?.input_tokens, output_tokens: raw?.usage?.output_tokens },
  };
}

/** The same fields from a streamed response_done event (the SDK's protocol items). */
function streamedReply(response) {
  const items = response?.output ?? [];
  return {
    content: items.filter((i) => i.type === 'message').flatMap((m) => m.content ?? []).filter((c) => c.type === 'output_text').map((c) => c.text).join(''),
    calls: items.filter((i) => i.type === 'function_call').map((c) => ({ id: c.callId, name: c.name, arguments: parseArguments(c.arguments ?? '') })),
    finish: finishOf(response?.providerData?.status, response?.providerData?.incomplete_details),
    usage: { input_tokens: response?.usage?.inputTokens, output_tokens: response?.usage?.outputTokens },
  };
}

/**
 * A Model (the SDK's interface) that reports each request of the wrapped model: provider:request
 * before it, then provider:stream, provider:response or provider:error. `run` is the execute's
 * counters.
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

  /** provider:request and its reply applied: the request to send, and its iteration. */
  async begin(request) {
    const { client, provider, run } = this;
    // The Runner asks for a request after a SIGINT it has not looked at yet: the request is
    // never sent (the wrapped model would throw the same abort before building it).
    if (run.signal?.aborted) throw Object.assign(new Error('the run was cancelled'), { name: 'AbortError' });
    run.iteration += 1;
    const items = asItems(request.input);
    run.lastInput = items;
    const iteration = run.iteration;
    const reply = await client.emit('provider:request', { provider: provider.name, model: provider.model, iteration, attempt: 1 });
    if (denies(reply)) throw new Denied(denyReason(reply));
    const inj = injection(reply);
    if (inj && inj.ephemeral) run.ephemeral.push(inj);
    if (inj && !inj.ephemeral) run.kept.push([items.length, inputMessage(inj)]);
    const extra = run.ephemeral.splice(0).map(inputMessage);
    if (!extra.length && !run.kept.length) return { iteration, sent: request };
    return { iteration, sent: { ...request, input: [...withKept(items, run.kept), ...extra] } };
  }

  async failed(iteration, e, retryable) {
    const { client, provider, run } = this;
    run.turns += 1;
    const pe = providerError(e);
    if (retryable !== undefined && pe.error.type !== 'cancelled') pe.retryable = retryable;
    await client.emit('provider:error', { provider: provider.name, iteration, attempt: 1, ...pe });
  }

  async answered(iteration, { content, calls, finish, usage }) {
    const { client, provider, run } = this;
    run.turns += 1;
    for (const c of calls) run.callInputs.set(c.id, c.arguments);
    run.lastContent = content;
    await client.emit('provider:response', { provider: provider.name, iteration, content, tool_calls: calls, finish_reason: finish, usage });
    run.groups += 1;
  }

  async getResponse(request) {
    const { iteration, sent } = await this.begin(request);
    let res;
    try {
      res = await this.inner.getResponse(sent);
    } catch (e) {
      await this.failed(iteration, e);
      throw e;
    }
    await this.answered(iteration, rawReply(res.providerData));
    return res;
  }

  async *getStreamedResponse(request) {
    const { iteration, sent } = await this.begin(request);
    const { client, provider } = this;
    let done = false;
    let failed = false;
    try {
      for await (const event of this.inner.getStreamedResponse(sent)) {
        if (event.type === 'output_text_delta' && !done) {
          await client.emit('provider:stream', { provider: provider.name, iteration, delta: event.delta });
        } else if (event.type === 'response_done' && !done) {
          done = true;
          await this.answered(iteration, streamedReply(event.response));
        }
        yield event;
      }
    } catch (e) {
      // SPEC.md 5.7: an error event or a broken chunk inside a stream is retryable.
      failed = true;
      if (!done) await this.failed(iteration, e, true);
      throw e;
    } finally {
      // The Runner stopped reading (an abort): the request is closed as cancelled.
      if (!done && !failed && this.run.signal?.aborted) {
        failed = true;
        await this.failed(iteration, Object.assign(new Error('the stream was abandoned on cancel'), { name: 'AbortError' }));
      }
    }
    // A stream that ends without its terminal event: the SDK goes on without a response_done.
    if (!done && !failed) {
      failed = true;
      this.run.turns += 1;
      await client.emit('provider:error', {
        provider: provider.name, iteration, attempt: 1, retryable: true, status_code: null,
        error: { type: 'stream_error', message: 'the stream ended without its terminal event' },
      });
    }
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
        const done = await callAtEndpoint(client, ids, input, { signal: details?.signal ?? signal, timeoutMs: session.config.tool_timeout_ms });
        if (done.injection?.ephemeral) run.ephemeral.push(done.injection);
        else if (done.injection) run.kept.push([callId, inputMessage(done.injection)]);
        return done.text;
      },
    });
    const frameworkInvoke = t.invoke;
    t.invoke = async (runContext, rawInput, details) => {
      const callId = details?.toolCall?.callId ?? '';
      run.invoked.add(callId);
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
  run.reported.add(callId);
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
 * The Agent's toolUseBehavior: the Runner calls it with the results of each tool round before the
 * next request. A result whose call never reached a tool's invoke (arguments the Runner could not
 * parse; unknown tools went through reportToolNotFound) gets its tool:pre and tool:error here,
 * so that the call is reported before its result goes to the model. The run goes on.
 */
function reportUnrunCalls(client, state, run) {
  return async (_context, results) => {
    for (const r of results) {
      const raw = r.runItem?.rawItem;
      const callId = raw?.callId;
      if (!callId || run.invoked.has(callId) || run.reported.has(callId)) continue;
      run.reported.add(callId);
      const name = r.tool?.name ?? raw?.name ?? '';
      const ids = { tool_call_id: callId, tool_name: name, parallel_group_id: `pg-${state.executes}-${run.groups}` };
      const toolInput = run.callInputs.get(callId) ?? {};
      const pre = await client.emit('tool:pre', { ...ids, tool_input: toolInput });
      const error = denies(pre)
        ? { type: 'denied', message: denyReason(pre) }
        : { type: 'invalid_arguments', message: 'the arguments are not valid JSON; the Runner did not run the tool' };
      await client.emit('tool:error', { ...ids, error, tool_input: toolInput });
    }
    return { isFinalOutput: false, isInterrupted: undefined };
  };
}

/**
 * One execute: the events of SPEC.md section 4 around one Runner.run call. `state` carries what
 * lives across executes: the SDK's session (the history) and the execute counter.
 */
export async function executeOpenAIAgents({ prompt, client, session, signal }, state) {
  const config = session.config;
  const run = {
    turns: 0, iteration: 0, ephemeral: [], kept: [], lastInput: null, groups: 0, lastContent: '', callInputs: new Map(), invoked: new Set(), reported: new Set(), signal,
  };
  const complete = (status, extra = {}) =>
    client.emit('orchestrator:complete', { orchestrator: ORCHESTRATOR, turn_count: run.turns, status, ...extra });

  try {
    const { submit, provider, ended } = await openaiPrologue({ prompt, client, session }, complete, ['responses']);
    if (ended) return ended;
    const cancel = cancellation({ client, signal, orchestrator: ORCHESTRATOR, turns: () => run.turns });
    // The conversation lives where the SDK keeps it: a MemorySession, one per SUT process; each
    // execute's input is its new items, which the Runner adds to the session's history.
    const input = [{ role: 'user', content: prompt }];
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
    const model = new ReportingModel(new OpenAIResponsesModel(openai, provider.model), { client, provider, run });
    const agent = new Agent({
      name: ORCHESTRATOR,
      model,
      tools: sessionTools({ client, session, state, run, signal }),
      toolUseBehavior: reportUnrunCalls(client, state, run),
    });
    const runner = new Runner({
      tracingDisabled: true,
      toolNotFoundBehavior: 'return_error_to_model',
      toolErrorFormatter: (args) => (args.kind === 'tool_not_found' ? reportToolNotFound(client, state, run, args) : undefined),
      toolExecution: { maxFunctionToolConcurrency: config.parallel_tools ? null : 1 },
    });

    let result;
    try {
      if (config.streaming) {
        result = await runner.run(agent, input, { maxTurns: config.max_iterations, signal, session: state.session, stream: true });
        for await (const _event of result); // eslint-disable-line no-unused-vars
        await result.completed;
        if (result.error) throw result.error;
      } else {
        result = await runner.run(agent, input, { maxTurns: config.max_iterations, signal, session: state.session });
      }
    } catch (e) {
      const denied = deniedIn(e);
      // From here a SIGINT is too late to change how the execute ends (SPEC.md 5.10, PROC-004).
      cancel.stop();
      if (!(e instanceof MaxTurnsExceededError)) await keepWhatRan(state, run, { result, input, cancelled: !denied && cancel.requested });
      if (denied) {
        await client.emit('prompt:complete', { response: `Denied: ${denied.reason}` });
        return await complete('incomplete', { reason: 'denied' });
      }
      if (await cancel.finish()) return await complete('cancelled');
      if (e instanceof MaxTurnsExceededError) {
        // The error carries the SDK's state at the limit; its history (the session's items and
        // this run's) becomes the session, as a caller that resumes from it would keep it.
        if (Array.isArray(e.state?.history)) {
          await state.session.clearSession();
          await state.session.addItems(e.state.history);
        }
        await keepInjections(state.session, run.kept);
        await client.emit('prompt:complete', { response: run.lastContent });
        return await complete('incomplete', { reason: 'max_iterations' });
      }
      return await complete('error', { error: providerError(e).error });
    }
    cancel.stop();
    if (cancel.requested) {
      await keepWhatRan(state, run, { result, input, cancelled: true });
      await cancel.finish();
      return await complete('cancelled');
    }
    await keepInjections(state.session, run.kept);
    const text = typeof result.finalOutput === 'string' ? result.finalOutput : JSON.stringify(result.finalOutput ?? '');
    await client.emit('prompt:complete', { response: text });
    return await complete('success');
  } finally {
    state.executes += 1;
  }
}

/** A fresh cross-execute state for executeOpenAIAgents. */
export const newState = () => ({ session: new MemorySession(), executes: 0 });
