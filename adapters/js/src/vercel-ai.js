// The Vercel AI SDK bridge: runs `generateText` (or `streamText` when the session streams) with
// the session's tools and a step limit, and reports what the framework does as ock/1 events. The
// model is the session's first provider on its wire: @ai-sdk/openai's Chat Completions model
// (`openai`) or its Responses model (`responses`, `openai.responses(...)`), @ai-sdk/anthropic
// (`anthropic`) or @ai-sdk/google (`gemini`).
//
// Where the events come from:
// - prompt:submit, prompt:complete, orchestrator:complete: around the generateText/streamText call.
// - provider:request: the language-model middleware's transformParams, before the request is
//   built, so its reply can deny the request (the call is aborted with an error) or inject an
//   ephemeral message into it.
// - provider:stream, provider:response, provider:error: wrapGenerate / wrapStream, from what the
//   model returned (the wire's own finish reason is read from the raw reply).
// - tool:pre, tool:post, tool:error: the tool wrappers, at the moment the framework runs a tool
//   (deny and modify applied there); a kept injection of tool:post joins the next step's
//   messages through the framework's prepareStep.
// - the calls the framework would answer itself (an unknown tool, arguments that do not parse or
//   fail the schema): its repairToolCall hook, called before the step's tools run: tool:pre there,
//   its modify repairs the call (the framework then runs it through the tool wrapper), else
//   tool:error and the framework's own error result.
// - cancel:requested, cancel:completed: SIGINT aborts the abortSignal generateText/streamText
//   was given.
//
// What the framework does not do, the bridge does not do either; manifests/vercel-ai.json says what
// it cannot apply, and make test-frameworks grades the rest. The framework's own retries are off
// (maxRetries 0): it retries without a hook, so a provider:retry could only be reported after the
// wait it announces.
import aiPackage from 'ai/package.json' with { type: 'json' };
import { generateText, streamText, stepCountIs, jsonSchema, tool, wrapLanguageModel } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { denies, RETRYABLE_STATUS } from './client.js';
import {
  isObject, denyReason, parseArguments, injection, Denied, deniedIn, callAtEndpoint, cancellation, firstProvider, CANCELLED_TEXT,
} from './bridge.js';

export const ORCHESTRATOR = 'vercel-ai-bridge';

// The installed ai's major: the bridge runs on ai 7 (the current major) and on ai 5 (the previous
// one graded, manifests/vercel-ai-5.json). Where they differ:
// - the middleware names its version `specificationVersion: 'v4'` on 7, `middlewareVersion: 'v2'` on 5;
// - the call's system text is `instructions` on 7, `system` on 5 (also in prepareStep's result);
// - repairToolCall is `experimental_repairToolCall` on 5;
// - a step's response.messages are that step's own on 7, all the steps' so far on 5, and the run's
//   are result.responseMessages on 7, result.response.messages on 5;
// - messages a prepareStep returns are kept for the later steps on 7, used for that step only on
//   5 (so on 5 each step's prepareStep puts the kept injections back at their places);
// - 7 has toolCallConcurrency and a per-step timeout; 5 has neither: parallel_tools false is
//   emulated on 5 (a queue), and request_timeout_ms is each request's abort signal (middleware).
const AI_MAJOR = Number(aiPackage.version.split('.')[0]);
const AI5 = AI_MAJOR < 7;
const SYSTEM_OPTION = AI5 ? 'system' : 'instructions';

function promptMessage({ role, text }) {
  return role === 'system' ? { role: 'system', content: text } : { role, content: [{ type: 'text', text }] };
}

/** A step's finish reason as a string: ai 7 gives {unified, raw}, ai 5 the string. */
function unifiedReason(reason) {
  return typeof reason === 'string' ? reason : reason?.unified ?? 'unknown';
}

/**
 * The provider:error fields of what ended a request. A request ended by the execute's abort is
 * cancelled (SPEC.md 5.10 step 3) whatever the error says: the SDK rethrows the signal's reason,
 * here the Error('SIGINT') of client.js's Interrupts, or a stream read that broke off with it.
 * @param {any} e
 * @param {AbortSignal} [signal] the execute's abort signal
 */
function providerError(e, signal) {
  const status = Number.isInteger(e?.statusCode) ? e.statusCode : null;
  let type = 'connection_error';
  if (status !== null) type = 'http_error';
  else if (e?.name === 'AbortError' || e?.name === 'ResponseAborted' || signal?.aborted) type = 'cancelled';
  else if (/Timeout/.test(e?.name ?? '')) type = 'timeout';
  else if (/JSON|parse|Invalid|validation/i.test(e?.name ?? '') || /JSON/.test(e?.message ?? '')) type = 'malformed_response';
  const message = status !== null ? `HTTP ${status}: ${e.message}` : String(e?.message || e?.name || 'provider error');
  const retryable = status !== null ? RETRYABLE_STATUS.includes(status) : type === 'connection_error' || type === 'timeout';
  return { error: { type, message }, retryable, status_code: status };
}

/**
 * The tools' validate: the input must be a JSON object (the rest of the schema is the tool's). An
 * empty string is the empty arguments of a wire whose arguments are an object (Anthropic's input,
 * Gemini's args), which @ai-sdk/anthropic and @ai-sdk/google hand over as the JSON text "":
 * {} (SPEC.md 6.1).
 */
const objectInput = (value) => {
  if (value === '') return { success: true, value: {} };
  return isObject(value) ? { success: true, value } : { success: false, error: new Error('the arguments are not a JSON object') };
};

/** provider:response usage from the model's: ai 7 counts tokens as {total, ...} objects. */
const count = (t) => (typeof t === 'number' ? t : t?.total);
const tokens = (u) => ({ input_tokens: count(u?.inputTokens), output_tokens: count(u?.outputTokens) });

/** The Responses API's status as a finish_reason (SPEC.md 6.10): the reason when incomplete. */
const responsesFinish = (r) => (r?.status === 'incomplete' ? (r.incomplete_details?.reason ?? 'incomplete') : r?.status);

/**
 * The wire's own finish reason: from a non-streamed reply's body, and from one raw chunk of a
 * streamed one (undefined when the chunk carries none).
 */
const WIRE_FINISH = {
  openai: { body: (b) => b?.choices?.[0]?.finish_reason, chunk: (v) => v?.choices?.[0]?.finish_reason },
  anthropic: { body: (b) => b?.stop_reason, chunk: (v) => v?.delta?.stop_reason },
  responses: {
    body: responsesFinish,
    chunk: (v) => (['response.completed', 'response.incomplete', 'response.failed'].includes(v?.type) ? responsesFinish(v.response) : undefined),
  },
  gemini: { body: (b) => b?.candidates?.[0]?.finishReason, chunk: (v) => v?.candidates?.[0]?.finishReason },
};

/** The language model of the session's first provider (lowest priority number, then order). */
export function sessionModel(session, client) {
  const p = firstProvider(session);
  if (!p) return null;
  const fetch = client.tracedFetch();
  const openaiKey = process.env.OPENAI_API_KEY || 'ock-dummy-key';
  if (p.api === 'openai') return { provider: p, model: createOpenAI({ apiKey: openaiKey, fetch, baseURL: p.base_url }).chat(p.model) };
  if (p.api === 'responses') return { provider: p, model: createOpenAI({ apiKey: openaiKey, fetch, baseURL: p.base_url }).responses(p.model) };
  if (p.api === 'gemini') {
    const apiKey = process.env.GEMINI_API_KEY || process.env.GOOGLE_API_KEY || 'ock-dummy-key';
    return { provider: p, model: createGoogleGenerativeAI({ apiKey, fetch, baseURL: `${p.base_url}/v1beta` })(p.model) };
  }
  return {
    provider: p,
    model: createAnthropic({ fetch, apiKey: process.env.ANTHROPIC_API_KEY || 'ock-dummy-key', baseURL: `${p.base_url}/v1` })(p.model),
  };
}

/**
 * One execute: the events of SPEC.md section 4 around one generateText/streamText call.
 * `state` carries what lives across executes: the message history and the response counter.
 */
export async function executeVercelAi({ prompt, client, session, signal }, state) {
  const config = session.config;
  const run = { turns: 0, iteration: 0, ephemeral: [], kept: [], stored: [], groups: 0, done: [], returned: false, broken: null };
  const complete = (status, extra = {}) =>
    client.emit('orchestrator:complete', { orchestrator: ORCHESTRATOR, turn_count: run.turns, status, ...extra });

  const submit = await client.emit('prompt:submit', { prompt });
  if (denies(submit)) {
    await client.emit('prompt:complete', { response: `Denied: ${denyReason(submit)}` });
    return complete('incomplete', { reason: 'denied' });
  }
  const chosen = sessionModel(session, client);
  if (prompt.trim() === '' || !chosen) {
    const error = prompt.trim() === '' ? { type: 'invalid_input', message: 'the prompt is empty' } : { type: 'no_provider', message: 'the session has no provider' };
    return complete('error', { error });
  }
  const { provider, model } = chosen;
  const finishOf = WIRE_FINISH[provider.api];
  const cancel = cancellation({ client, signal, orchestrator: ORCHESTRATOR, turns: () => run.turns });
  // The end of a cancelled execute: the closing assistant message joins the history the bridge
  // keeps (SPEC.md 5.10; ai keeps none), then cancel:completed.
  const cancelled = async () => {
    if (cancel.requested) state.history = [...state.history, { role: 'assistant', content: CANCELLED_TEXT }];
    return cancel.finish();
  };
  const messages = [...state.history, { role: 'user', content: prompt }];
  // A kept injection is stored where the wire can hold it: after the prompt, or on Gemini, whose
  // contents have no system role (@ai-sdk/google refuses a system message after the first user
  // message), a system one in the instructions it sends as systemInstruction.
  const keep = (inj) => {
    if (inj.role === 'system' && provider.api === 'gemini') {
      state.instructions.push(inj.text);
      return [];
    }
    return [{ role: inj.role, content: inj.text }];
  };
  const injected = injection(submit);
  if (injected && !injected.ephemeral) messages.push(...keep(injected));
  if (injected && injected.ephemeral) run.ephemeral.push(injected);

  // The request being reported, from its provider:request to its provider:response or
  // provider:error. A streamed step's tools can start before the bridge has reported the
  // stream's finish part: a tool waits for its step's provider:response (SPEC.md 4.2 orders
  // tool:pre after it). Events the bridge holds back until then are in `held`.
  let open = null;
  const held = new Set();
  const openRequest = () => {
    let resolve;
    const done = new Promise((r) => { resolve = r; });
    open = { done, resolve };
  };
  const closeRequest = () => {
    open?.resolve();
    open = null;
  };
  const hold = (p) => {
    held.add(p);
    p.finally(() => held.delete(p)).catch(() => {});
    return p;
  };
  // answer: true for the first of the stream's end and the call's end to close the open request
  // (the abort can end the call while the stream's last part is still being reported); each
  // then sends its provider:response or provider:error, the other nothing.
  const answer = () => {
    if (open?.answered) return false;
    if (open) open.answered = true;
    return true;
  };
  const abortError = () => Object.assign(new Error('the call was cancelled'), { name: 'AbortError' });

  const middleware = {
    ...(AI5 ? { middlewareVersion: 'v2' } : { specificationVersion: 'v4' }),
    transformParams: async ({ type, params }) => {
      await Promise.allSettled([...held]);
      // A SIGINT the framework has not looked at yet: the request is never sent.
      if (signal.aborted) throw abortError();
      run.iteration += 1;
      const reply = await client.emit('provider:request', { provider: provider.name, model: provider.model, iteration: run.iteration, attempt: 1 });
      if (denies(reply)) throw new Denied(denyReason(reply));
      openRequest();
      const inj = injection(reply);
      if (inj && inj.ephemeral) run.ephemeral.push(inj);
      const extra = run.ephemeral.splice(0).map(promptMessage);
      // ai 5 has no timeout of its own: the request gets request_timeout_ms through its signal.
      const abortSignal = AI5 ? AbortSignal.any([params.abortSignal, AbortSignal.timeout(config.request_timeout_ms)].filter(Boolean)) : params.abortSignal;
      return { ...params, abortSignal, prompt: [...params.prompt, ...extra], includeRawChunks: type === 'stream' ? true : params.includeRawChunks };
    },
    wrapGenerate: async ({ doGenerate }) => {
      const iteration = run.iteration;
      let result;
      try {
        result = await doGenerate();
      } catch (e) {
        run.turns += 1;
        await client.emit('provider:error', { provider: provider.name, iteration, attempt: 1, ...providerError(e, signal) });
        closeRequest();
        throw e;
      }
      run.turns += 1;
      const body = result.response?.body;
      const wire = finishOf.body(body);
      const content = result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
      const calls = result.content.filter((c) => c.type === 'tool-call').map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: parseArguments(c.input) }));
      await client.emit('provider:response', {
        provider: provider.name, iteration, content, tool_calls: calls, finish_reason: wire ?? unifiedReason(result.finishReason),
        usage: tokens(result.usage),
      });
      closeRequest();
      run.groups += 1;
      return result;
    },
    wrapStream: async ({ doStream }) => {
      const iteration = run.iteration;
      let res;
      try {
        res = await doStream();
      } catch (e) {
        run.turns += 1;
        await client.emit('provider:error', { provider: provider.name, iteration, attempt: 1, ...providerError(e, signal) });
        closeRequest();
        throw e;
      }
      run.turns += 1;
      let text = '';
      let wire = null;
      const calls = [];
      let closed = false;
      const report = new TransformStream({
        async transform(part, controller) {
          if (part.type === 'raw') {
            const v = part.rawValue;
            const fr = finishOf.chunk(v);
            if (typeof fr === 'string') wire = fr;
            return; // asked for by the bridge, not by the caller
          }
          if (part.type === 'text-delta') {
            text += part.delta;
            await client.emit('provider:stream', { provider: provider.name, iteration, delta: part.delta });
          } else if (part.type === 'tool-call') {
            calls.push({ id: part.toolCallId, name: part.toolName, arguments: parseArguments(part.input) });
          } else if (part.type === 'error' && !closed) {
            closed = true;
            if (!answer()) return controller.enqueue(part);
            // SPEC.md 5.7: an error event or a malformed chunk inside a stream is retryable,
            // whatever the error's own class says (a malformed non-streamed reply is not).
            const pe = providerError(part.error, signal);
            if (pe.error.type !== 'cancelled') pe.retryable = true;
            // A broken reply (SPEC.md 5.7): its calls are not the SUT's to decide on, and if the
            // framework ends the loop here the execute ends in error without the broken step.
            if (pe.error.type !== 'cancelled') run.broken ??= { at: run.done.length, iteration, message: pe.error.message };
            await client.emit('provider:error', { provider: provider.name, iteration, attempt: 1, ...pe });
            closeRequest();
          } else if (part.type === 'finish' && !closed) {
            closed = true;
            if (!answer()) return controller.enqueue(part);
            const reason = unifiedReason(part.finishReason);
            // A stream that stopped without its completion signal (a cut, a dropped connection,
            // no terminator): ai 7's providers finish it as 'interrupted', ai 5's as 'unknown'
            // with no finish reason on the wire. A broken reply (SPEC.md 5.7), not an answer:
            // the framework runs none of its calls and ends the loop; the execute ends in error.
            if (reason === 'interrupted' || (wire === null && reason === 'unknown')) {
              run.broken ??= { at: run.done.length, iteration, message: 'the stream ended without a completion signal' };
              await client.emit('provider:error', { provider: provider.name, iteration, attempt: 1, error: { type: 'stream_error', message: run.broken.message }, retryable: true, status_code: null });
            } else {
              await client.emit('provider:response', {
                provider: provider.name, iteration, content: text, tool_calls: calls, finish_reason: wire ?? reason,
                usage: tokens(part.usage),
              });
              run.groups += 1;
            }
            closeRequest();
          }
          controller.enqueue(part);
        },
        async flush() {
          if (!closed) {
            closed = true;
            if (!answer()) return;
            await client.emit('provider:error', { provider: provider.name, iteration, attempt: 1, error: { type: 'stream_error', message: 'the stream ended without a finish part' }, retryable: true, status_code: null });
            closeRequest();
          }
        },
      });
      return { ...res, stream: res.stream.pipeThrough(report) };
    },
  };

  // Calls the bridge already sent tool:pre for, in repairToolCall (a call its modify repaired).
  const preSent = new Set();
  // parallel_tools false on ai 5 (emulated, manifests/vercel-ai-5.json): the framework starts a
  // step's calls at once, in call order; each takes its place in this queue first, so they run
  // one after another in call order. ai 7 does it itself (toolCallConcurrency 1). Every run is
  // held, so that the call's end waits for it: ai 5 returns from an aborted streamed step
  // without waiting for the tools it started.
  let queue = Promise.resolve();
  const oneAtATime = (execute) => (!AI5 || config.parallel_tools ? execute : (...args) => {
    const turn = queue.then(() => execute(...args));
    queue = turn.catch(() => {});
    return turn;
  });
  const heldRun = (execute) => (...args) => hold(execute(...args));
  // On Gemini, @ai-sdk/google sends a tool output as functionResponse.response {name, content},
  // and an error output as {name, error}: a failed call's text goes out as an error output
  // there, so the model reads it as the failure it is (other wires send the text as it is).
  const failedCalls = new Set();
  const failed = (toolCallId, text) => {
    failedCalls.add(toolCallId);
    return text;
  };
  const toModelOutput = !AI5 && provider.api === 'gemini'
    ? ({ toolCallId, output }) => ({ type: failedCalls.has(toolCallId) ? 'error-text' : 'text', value: String(output) })
    : undefined;
  const tools = {};
  for (const spec of session.tools) {
    tools[spec.name] = tool({
      description: spec.description,
      // jsonSchema checks nothing without a validate function: a call whose input is not a JSON
      // object (SPEC.md 5.8) is then refused by the framework (InvalidToolInputError), so that it
      // reaches repairToolCall instead of the tool.
      inputSchema: jsonSchema(spec.input_schema, { validate: objectInput }),
      ...(toModelOutput ? { toModelOutput } : {}),
      execute: heldRun(oneAtATime(async (input, { toolCallId, abortSignal }) => {
        await open?.done;
        // A call the framework starts after generateText/streamText has returned or thrown (ai 5
        // still starts a streamed step's tools after an abort has ended the call): the execute
        // is ending, so the tool is not run and nothing is reported after orchestrator:complete.
        if (run.returned) return 'Error: cancelled';
        const base = { tool_call_id: toolCallId, tool_name: `${spec.name}`, parallel_group_id: `pg-${state.executes}-${run.groups}` };
        let sent = input;
        if (!preSent.delete(toolCallId)) {
          const pre = await client.emit('tool:pre', { ...base, tool_input: input });
          if (denies(pre)) {
            await client.emit('tool:error', { ...base, error: { type: 'denied', message: denyReason(pre) }, tool_input: input });
            return failed(toolCallId, `Error: denied: ${denyReason(pre)}`);
          }
          if (pre.action === 'modify' && isObject(pre.data?.tool_input)) sent = pre.data.tool_input;
        }
        const done = await callAtEndpoint(client, base, sent, { signal: abortSignal, timeoutMs: config.tool_timeout_ms });
        if (done.injection) (done.injection.ephemeral ? run.ephemeral : run.kept).push(done.injection);
        return done.failed ? failed(toolCallId, done.text) : done.text;
      })),
    });
  }

  // The framework's repairToolCall: called for a call it would not run (NoSuchToolError,
  // InvalidToolInputError) before the step's tools run. tool:pre is sent there; a modify whose
  // tool_input names a tool of the session repairs the call, which the framework then runs
  // through the tool wrapper (no second tool:pre); otherwise tool:error, and the framework
  // answers the call with its own error result.
  const report = async ({ toolCall, error }, canRepair) => {
    // A call of a broken reply (its request closed with provider:error): not a call the SUT
    // decides on (SPEC.md 5.7), so no tool:pre or tool:error; the framework answers it itself.
    if (run.broken && run.broken.iteration === run.iteration) return null;
    const base = { tool_call_id: toolCall.toolCallId, tool_name: toolCall.toolName, parallel_group_id: `pg-${state.executes}-${run.groups}` };
    const raw = toolCall.input ?? '';
    const toolInput = raw.trim() === '' ? {} : parseArguments(raw);
    const pre = await client.emit('tool:pre', { ...base, tool_input: toolInput });
    let type = error?.name === 'AI_NoSuchToolError' ? 'not_found' : 'invalid_arguments';
    let message = String(error?.message ?? type);
    if (denies(pre)) {
      type = 'denied';
      message = denyReason(pre);
    } else if (canRepair && pre.action === 'modify' && isObject(pre.data?.tool_input) && tools[toolCall.toolName]) {
      preSent.add(toolCall.toolCallId);
      return { ...toolCall, input: JSON.stringify(pre.data.tool_input) };
    }
    await client.emit('tool:error', { ...base, error: { type, message }, tool_input: toolInput });
    return null;
  };
  // On a stream the hook runs while the step's reply is still arriving: its events wait for the
  // provider:response, and the call is not repaired (the framework answers it).
  const repairToolCall = async (args) => {
    if (!open) return report(args, true);
    hold(open.done.then(() => report(args, false)));
    return null;
  };

  // The kept injections of tool:post join the messages of the next step through prepareStep;
  // the framework keeps a step's messages for the steps after it. Each is also stored in the
  // history at its place among the response messages (`at`: how many came before it).
  const system = () => (state.instructions.length ? { [SYSTEM_OPTION]: state.instructions.join('\n\n') } : {});
  const prepareStep = ({ messages: stepMessages, responseMessages: before }) => {
    const added = run.kept.splice(0).flatMap(keep);
    if (added.length) run.stored.push({ at: (before ?? run.done).length, messages: added });
    if (AI5 && run.stored.length) return { messages: [...messages, ...withStored(run.done)], ...system() };
    if (!added.length) return state.instructions.length ? system() : undefined;
    return { messages: [...stepMessages, ...added], ...system() };
  };
  const withStored = (response) => {
    const out = [];
    let i = 0;
    for (const s of run.stored) {
      out.push(...response.slice(i, s.at), ...s.messages);
      i = s.at;
    }
    return [...out, ...response.slice(i)];
  };

  const options = {
    model: wrapLanguageModel({ model, middleware }),
    messages,
    ...system(),
    prepareStep,
    // ai 7 refuses system messages in `messages` unless asked: a kept prompt:submit injection
    // of role system is one, after the prompt (SPEC.md 5.6).
    allowSystemInMessages: true,
    tools,
    stopWhen: stepCountIs(config.max_iterations),
    maxRetries: 0,
    abortSignal: signal,
    // parallel_tools false: the framework's own toolCallConcurrency 1 runs a step's calls one
    // after another in call order.
    ...(AI5 ? {} : { toolCallConcurrency: config.parallel_tools ? undefined : 1 }),
    // request_timeout_ms: the framework's per-step timeout, which covers the step's request and
    // its tools (its nearest hook; the manifest says so).
    ...(AI5 ? {} : { timeout: { stepMs: config.request_timeout_ms } }),
    [AI5 ? 'experimental_repairToolCall' : 'repairToolCall']: repairToolCall,
    // On the Responses API the provider stores each response by default and sends the earlier
    // items as item_reference ids. The mock resolves those (SPEC.md 6.10), but after a stream
    // that failed part way the provider also refers to the partial message item, which the mock
    // does not keep (whether the API does is not documented): that 404 would end the next
    // execute of the stream-fault scenarios. So the bridge asks for full items (store false, as
    // a client that keeps its own history does).
    ...(provider.api === 'responses' ? { providerOptions: { openai: { store: false } } } : {}),
    // The messages of the steps that finished, kept when a later step fails (SPEC.md 5.7).
    onStepFinish: (step) => {
      if (AI5) run.done = [...step.response.messages];
      else run.done.push(...step.response.messages);
    },
  };
  try {
    let steps;
    let responseMessages;
    let finalText;
    if (config.streaming) {
      let streamError = null;
      const result = streamText({ ...options, onError: ({ error }) => { streamError ??= error; } });
      await result.consumeStream();
      if (streamError) throw streamError;
      steps = await result.steps;
      responseMessages = AI5 ? (await result.response).messages : await result.responseMessages;
      finalText = await result.text;
    } else {
      const result = await generateText(options);
      steps = result.steps;
      responseMessages = AI5 ? result.response.messages : result.responseMessages;
      finalText = result.text;
    }
    run.returned = true;
    await Promise.allSettled([...held]);
    if (run.broken && run.broken.iteration === run.iteration) {
      // The framework ended the loop on the broken reply: what the steps before it stored stays,
      // the broken step's messages do not (its calls were never answered).
      state.history = [...messages, ...withStored(run.done.slice(0, run.broken.at))];
      if (await cancelled()) return complete('cancelled');
      return complete('error', { error: { type: 'stream_error', message: run.broken.message } });
    }
    state.history = [...messages, ...withStored(responseMessages)];
    if (await cancelled()) return complete('cancelled');
    await client.emit('prompt:complete', { response: finalText });
    const last = steps.at(-1);
    if (last && last.finishReason === 'tool-calls') return complete('incomplete', { reason: 'max_iterations' });
    return complete('success');
  } catch (e) {
    run.returned = true;
    await Promise.allSettled([...held]);
    // A request still open when the call failed (an abort stops reading a stream without a
    // finish or an error part): it is closed as what ended it. Not one whose provider:response
    // or provider:error is being sent: the abort can end the call while the stream's last part
    // is reported.
    if (open && answer()) {
      const pe = providerError(e, signal);
      await client.emit('provider:error', { provider: provider.name, iteration: run.iteration, attempt: 1, ...pe });
      closeRequest();
    }
    const d = deniedIn(e);
    if (d) {
      cancel.stop();
      state.history = [...messages, ...withStored(run.done)]; // what the context already holds stays
      await client.emit('prompt:complete', { response: `Denied: ${d.reason}` });
      return complete('incomplete', { reason: 'denied' });
    }
    state.history = [...messages, ...withStored(run.done)];
    if (await cancelled()) return complete('cancelled');
    const { error } = providerError(e, signal);
    return complete('error', { error });
  } finally {
    state.executes += 1;
  }
}

/** A fresh cross-execute state for executeVercelAi. */
export const newState = () => ({ history: [], instructions: [], executes: 0 });
