// The LangGraph bridge: runs LangGraph's prebuilt ReAct agent (createReactAgent) over
// @langchain/openai's ChatOpenAI pointed at the session's provider, with the session's tools as
// LangChain tools and recursionLimit from max_iterations, and reports what the framework does as
// ock/1 events. The conversation lives where LangGraph keeps it: a MemorySaver checkpointer, one
// thread per session, so each prompt is one invoke with the new user message.
//
// Where the events come from:
// - prompt:submit, prompt:complete, orchestrator:complete: around the graph's invoke.
// - provider:request: ChatOpenAI delegates each Chat Completions call to its `completions` model;
//   the bridge gives it one whose _generate sends the event and awaits the reply before the
//   request is built, so a deny stops the request (the graph ends with an error the bridge
//   recognises) and an ephemeral injection is appended to that request's messages only.
// - provider:stream: with the session streaming (ChatOpenAI's `streaming`), the same model's
//   _streamResponseChunks, which _generate reads: one event per text chunk.
// - provider:response, provider:error: the same _generate, from the message the wrapped call
//   returned (finish_reason from its generation info, the wire's tool calls from the message's
//   additional_kwargs) or the error it threw.
// - tool:pre: each tool's invoke, wrapped: the ToolNode calls it once per call it found a tool
//   for, before the tool validates its input; deny (the tool is not invoked) and modify (the
//   replacement is the input the tool receives) are applied there.
// - tool:post, tool:error: the tool's function, around the tools endpoint.
// - createReactAgent's preModelHook, a node that runs before each model call: it adds the kept
//   injections of tool:post to the graph's messages (they stay in the conversation), and sends
//   tool:pre and tool:error for the calls the ToolNode answered itself without calling a tool's
//   invoke (an unknown tool), found as its error ToolMessages.
// - createReactAgent's postModelHook, a node after each model call: tool:pre, then tool:error or
//   the tools endpoint, for the calls whose arguments did not parse (the message's
//   invalid_tool_calls, which the ToolNode never sees); it answers them with ToolMessages.
// - cancel:requested, cancel:completed: SIGINT aborts the signal the graph's invoke was given;
//   before cancel:completed the thread's state is repaired with the graph's updateState (repair).
//
// What the framework does not do, the bridge does not do either; manifests/langgraph.json says
// what it cannot apply, and make test-frameworks grades the rest. ChatOpenAI's retries are off
// (maxRetries 0): they run without a hook between the failure and the wait.
import { ChatOpenAI, ChatOpenAICompletions } from '@langchain/openai';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { MemorySaver, GraphRecursionError } from '@langchain/langgraph';
import { tool, ToolInputParsingException } from '@langchain/core/tools';
import { HumanMessage, SystemMessage, AIMessage, ToolMessage, RemoveMessage, isAIMessage } from '@langchain/core/messages';
import { denies, TRACE_HEADER } from './client.js';
import {
  isObject, denyReason, parseArguments, injection, callAtEndpoint, Denied, deniedIn, providerError, openaiPrologue, cancellation, CANCELLED_TEXT,
} from './bridge.js';

export const ORCHESTRATOR = 'langgraph-bridge';

/** An inject_context text as a LangChain message. */
function injectedMessage({ role, text }) {
  if (role === 'user') return new HumanMessage(text);
  if (role === 'assistant') return new AIMessage(text);
  return new SystemMessage(text);
}

const textOf = (message) => {
  const c = message?.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.filter((b) => b?.type === 'text').map((b) => b.text).join('');
  return '';
};

/**
 * An assistant message as the request carries it: ChatOpenAI writes a message's parsed tool_calls
 * when it has any, dropping its invalid_tool_calls, whose results (postModelHook's) the request
 * then carries without their calls. A message with both goes out with the calls the model sent
 * (additional_kwargs.tool_calls), all of them, as ChatOpenAI does for one with no parsed call.
 */
function wireCalls(m) {
  if (!isAIMessage(m) || !m.tool_calls?.length || !m.invalid_tool_calls?.length || !m.additional_kwargs?.tool_calls) return m;
  return Object.assign(Object.create(Object.getPrototypeOf(m)), m, { tool_calls: [] });
}

/**
 * The Chat Completions model ChatOpenAI delegates to, reporting each request: provider:request
 * before it, then provider:response or provider:error. `ock` holds the client, the provider and
 * the counters of the running execute (set by executeLangGraph before each invoke).
 */
class ReportingCompletions extends ChatOpenAICompletions {
  _generate(messages, options, runManager) {
    return this.ock.run.track(this.generateReported(messages, options, runManager));
  }

  async generateReported(messages, options, runManager) {
    const { client, provider, run } = this.ock;
    run.iteration += 1;
    const iteration = run.iteration;
    const reply = await client.emit('provider:request', { provider: provider.name, model: provider.model, iteration, attempt: 1 });
    if (denies(reply)) throw new Denied(denyReason(reply));
    const inj = injection(reply);
    if (inj && inj.ephemeral) run.ephemeral.push(inj);
    const sent = [...messages.map(wireCalls), ...run.ephemeral.splice(0).map(injectedMessage)];
    let result;
    try {
      result = await super._generate(sent, options, runManager);
    } catch (e) {
      run.turns += 1;
      const pe = providerError(e);
      // SPEC.md 5.7: a stream that breaks after its status line (a cut, a dropped connection, a
      // malformed chunk) is retryable, whatever the error's own class says.
      if (this.streaming && pe.status_code === null && pe.error.type !== 'cancelled') pe.retryable = true;
      // ChatOpenAI ends a request whose signal was aborted with a plain Error("AbortError").
      if (options?.signal?.aborted && pe.status_code === null) Object.assign(pe, { error: { ...pe.error, type: 'cancelled' }, retryable: false });
      await client.emit('provider:error', { provider: provider.name, iteration, attempt: 1, ...pe });
      throw e;
    }
    run.turns += 1;
    const gen = result.generations?.[0];
    const message = gen?.message;
    const calls = (message?.additional_kwargs?.tool_calls ?? []).map((c) => ({
      id: c.id, name: c.function?.name, arguments: parseArguments(c.function?.arguments ?? ''),
    }));
    run.lastContent = textOf(message);
    run.reply = message;
    for (const c of calls) run.callIds.add(c.id);
    const finish = gen?.generationInfo?.finish_reason ?? message?.response_metadata?.finish_reason ?? 'unknown';
    // A reply cut at the output token limit: its calls' arguments are what the model had
    // written when it was stopped (SPEC.md 5.8), answered by the postModelHook, never run.
    run.cut = new Map(finish === 'length'
      ? (message?.additional_kwargs?.tool_calls ?? []).map((c) => [c.id, c.function?.arguments ?? ''])
      : []);
    await client.emit('provider:response', {
      provider: provider.name, iteration, content: run.lastContent, tool_calls: calls,
      finish_reason: finish,
      usage: { input_tokens: message?.usage_metadata?.input_tokens, output_tokens: message?.usage_metadata?.output_tokens },
    });
    run.groups += 1;
    return result;
  }

  // On its streamed path ChatOpenAI also estimates token counts with @langchain/core's tiktoken,
  // which downloads its encoding at run time; the bridge reports the stream's own usage instead.
  async _getEstimatedTokenCountFromPrompt() {
    return 0;
  }

  async _getNumTokensFromGenerations() {
    return 0;
  }

  // With streaming on, ChatOpenAI's _generate (above) reads this stream to its end: each text
  // chunk is a provider:stream of the running request.
  async *_streamResponseChunks(messages, options, runManager) {
    const { client, provider, run } = this.ock;
    const iteration = run.iteration;
    for await (const chunk of super._streamResponseChunks(messages, options, runManager)) {
      if (chunk.text) await client.emit('provider:stream', { provider: provider.name, iteration, delta: chunk.text });
      yield chunk;
    }
  }
}

/**
 * A call of a session tool at the tools endpoint, with its tool:post or tool:error: the text of
 * the call's tool result.
 */
async function callEndpoint({ client, session, ock }, base, input, signal) {
  // Tracked with its result: a cancel's repair waits for a call whose tool:post is out, which
  // LangChain's tool invoke stops waiting for at the abort.
  const { run } = ock;
  const done = await run.track(callAtEndpoint(client, base, input, { signal, timeoutMs: session.config.tool_timeout_ms })
    .then((d) => { run.results.set(base.tool_call_id, d.text); return d; }));
  if (done.injection) (done.injection.ephemeral ? run.ephemeral : run.kept).push(done.injection);
  return done.text;
}

/**
 * The session's tools as LangChain tools. The function runs the tools endpoint; invoke is wrapped
 * so that tool:pre is sent before the tool validates its input.
 */
function sessionTools({ client, session, state, ock }) {
  // parallel_tools false (emulated, see the manifest): the ToolNode starts every call of a
  // message at once, calling the tools' invoke synchronously in call order; each call takes its
  // place in this queue before its first await, so the calls run one after another in call order.
  let queue = Promise.resolve();
  return session.tools.map((spec) => {
    const started = new Set(); // calls whose function ran, by id
    const ids = (callId) => ({ tool_call_id: callId, tool_name: spec.name, parallel_group_id: `pg-${state.executes}-${ock.run.groups}` });
    const t = tool(
      async (input, config) => {
        const callId = config?.toolCall?.id ?? config?.toolCallId ?? '';
        started.add(callId);
        return callEndpoint({ client, session, ock }, ids(callId), input, config?.signal);
      },
      { name: spec.name, description: spec.description ?? '', schema: spec.input_schema },
    );
    const frameworkInvoke = t.invoke.bind(t);
    t.invoke = async (call, config) => {
      if (session.config.parallel_tools) return ock.run.track(invokeReported(call, config));
      const turn = ock.run.track(queue.then(() => invokeReported(call, config)));
      queue = turn.catch(() => {});
      return turn;
    };
    const invokeReported = async (call, config) => {
      const callId = call?.id ?? '';
      ock.run.invoked.add(callId);
      const base = ids(callId);
      // The ToolNode hands over parsed arguments; ones that are not an object are reported as the
      // JSON text the model sent (SPEC.md 4.3.11: the raw string).
      const toolInput = isObject(call?.args) ? call.args : JSON.stringify(call?.args ?? null);
      const pre = await client.emit('tool:pre', { ...base, tool_input: toolInput });
      if (denies(pre)) {
        await client.emit('tool:error', { ...base, error: { type: 'denied', message: denyReason(pre) }, tool_input: toolInput });
        return `Error: denied: ${denyReason(pre)}`;
      }
      const sent = pre.action === 'modify' && isObject(pre.data?.tool_input) ? { ...call, args: pre.data.tool_input } : call;
      try {
        return await frameworkInvoke(sent, config);
      } catch (e) {
        // The tool refused the call before its function ran (the input failed the tool's schema
        // validation): reported as what it is, then left to the ToolNode, which turns it into
        // its own error message.
        if (!started.has(callId)) {
          const type = e instanceof ToolInputParsingException ? 'invalid_arguments' : 'execution_failed';
          await client.emit('tool:error', { ...base, error: { type, message: String(e?.message || e) }, tool_input: toolInput });
        }
        throw e;
      } finally {
        started.delete(callId);
      }
    };
    return t;
  });
}

/**
 * createReactAgent's preModelHook: before each model call, the kept injections waiting (from
 * tool:post) join the graph's messages, and each error ToolMessage for a call no tool's invoke saw
 * (the ToolNode answered it itself: an unknown tool) gets its tool:pre and tool:error.
 */
function preModelHook({ client, session, state, ock }) {
  const known = new Set(session.tools.map((t) => t.name));
  return async (graphState) => {
    const { run } = ock;
    const calls = new Map();
    for (const m of graphState.messages) {
      if (isAIMessage(m)) for (const c of m.tool_calls ?? []) calls.set(c.id, c);
      if (!ToolMessage.isInstance(m) || m.status !== 'error') continue;
      const id = m.tool_call_id;
      if (run.invoked.has(id) || run.reported.has(id) || !run.callIds.has(id)) continue;
      run.reported.add(id);
      const call = calls.get(id);
      const name = call?.name ?? m.name ?? '';
      const ids = { tool_call_id: id, tool_name: name, parallel_group_id: `pg-${state.executes}-${run.groups}` };
      const toolInput = isObject(call?.args) ? call.args : {};
      const pre = await client.emit('tool:pre', { ...ids, tool_input: toolInput });
      let error = known.has(name) ? { type: 'invalid_arguments', message: textOf(m) } : { type: 'not_found', message: `tool '${name}' not found` };
      if (denies(pre)) error = { type: 'denied', message: denyReason(pre) };
      await client.emit('tool:error', { ...ids, error, tool_input: toolInput });
    }
    // The recursion limit counts four supersteps a round, but a round the postModelHook answered
    // whole has no ToolNode superstep: past max_iterations model calls the graph would still
    // call the model. The limit stands for max_iterations calls, so the hook ends the graph here
    // the way the limit does.
    if (run.iteration >= session.config.max_iterations) throw new GraphRecursionError(`max_iterations (${session.config.max_iterations}) model calls made`);
    const kept = run.kept.splice(0).map(injectedMessage);
    return kept.length ? { messages: kept } : {};
  };
}

/**
 * createReactAgent's postModelHook, a node between the model call and the graph's router: the
 * calls of the model's message whose arguments did not parse are in its invalid_tool_calls
 * (ChatOpenAI's parse), which the ToolNode never sees. Each gets its tool:pre with the raw
 * arguments (an empty string is {}); a deny is tool:error denied, a modify that supplies an object
 * (or arguments that were empty) runs the tool at the endpoint, anything else is tool:error
 * invalid_arguments (SPEC.md 5.8). So are the calls of a reply cut at the output token limit
 * (finish_reason length), though their arguments parse (ChatOpenAI's streamed parser even
 * completes cut JSON): tool:pre with the raw arguments, and only a modify that supplies an object
 * runs one. The calls run at once, or in call order with parallel_tools false. The hook answers
 * each call with its ToolMessage; the router sends to the ToolNode only the calls of the message
 * that have no ToolMessage yet, and else back to the model.
 */
function postModelHook({ client, session, state, ock }) {
  const known = new Set(session.tools.map((t) => t.name));
  return async (graphState, config) => {
    const { run } = ock;
    const last = graphState.messages.at(-1);
    if (!isAIMessage(last)) return {};
    const answers = [];
    const cut = (last.tool_calls ?? []).filter((c) => run.cut.has(c.id));
    const answered = [...(last.invalid_tool_calls ?? []), ...cut];
    for (const c of answered) {
      const id = c.id ?? '';
      run.reported.add(id);
      const base = { tool_call_id: id, tool_name: c.name ?? '', parallel_group_id: `pg-${state.executes}-${run.groups}` };
      const args = run.cut.has(id) ? { raw: run.cut.get(id), cut: true } : { raw: c.args ?? '', cut: false };
      const answer = run.track(answerInvalid({ client, session, ock, known }, base, args, config?.signal));
      // parallel_tools false: one after another, in call order, as the ToolNode's calls.
      if (!session.config.parallel_tools) await answer.catch(() => {});
      answers.push(answer);
    }
    const texts = await Promise.all(answers);
    if (!texts.length) return {};
    const messages = answered.map((c, i) => new ToolMessage({
      content: texts[i].text, name: c.name ?? '', tool_call_id: c.id ?? '', status: texts[i].ran ? 'success' : 'error',
    }));
    return { messages };
  };
}

/**
 * One call whose arguments did not parse, or of a cut reply (`cut`: its raw arguments are its
 * input, and only a modify's object runs it): its events, and its tool result text.
 */
async function answerInvalid({ client, session, ock, known }, base, { raw, cut }, signal) {
  const toolInput = cut ? String(raw) : parseArguments(raw);
  const pre = await client.emit('tool:pre', { ...base, tool_input: toolInput });
  let error;
  if (denies(pre)) {
    error = { type: 'denied', message: denyReason(pre) };
  } else {
    const input = pre.action === 'modify' && isObject(pre.data?.tool_input) ? pre.data.tool_input : toolInput;
    if (isObject(input) && known.has(base.tool_name)) return { text: await callEndpoint({ client, session, ock }, base, input, signal), ran: true };
    error = known.has(base.tool_name)
      ? { type: 'invalid_arguments', message: cut ? `the reply stopped at the output token limit: ${String(raw).slice(0, 120)}` : `not valid JSON: ${String(raw).slice(0, 120)}` }
      : { type: 'not_found', message: `tool '${base.tool_name}' not found` };
  }
  await client.emit('tool:error', { ...base, error, tool_input: toolInput });
  const text = { denied: `Error: denied: ${error.message}`, invalid_arguments: `Error: invalid arguments: ${error.message}` }[error.type];
  return { text: text ?? `Error: ${error.message}`, ran: false };
}

const callsOf = (m) => [...(m?.tool_calls ?? []), ...(m?.invalid_tool_calls ?? [])];

/**
 * The messages a cancelled invoke's thread needs (SPEC.md 5.10, 5.14): `stored` is what the
 * thread's last checkpoint holds of this execute, `prompt` the invoke's input (stored here when
 * the cancel came before LangGraph stored it), `reply` the model's last reply, `results` the
 * texts of the calls that finished. A final answer stored before prompt:complete went out is
 * removed; every call of the last reply (stored, or reported and not stored yet) gets its result
 * or 'Error: cancelled'; then the closing message.
 */
export function repair(stored, prompt, reply, results) {
  const out = stored.length ? [] : [...prompt];
  let fresh = stored;
  const end = fresh.at(-1);
  if (end && isAIMessage(end) && !callsOf(end).length && end.response_metadata?.finish_reason) {
    out.push(new RemoveMessage({ id: end.id }));
    fresh = fresh.slice(0, -1);
  }
  const storedIds = new Set(fresh.filter(isAIMessage).flatMap((m) => callsOf(m).map((c) => c.id)));
  let last = [...fresh].reverse().find(isAIMessage);
  if (callsOf(reply).length && !callsOf(reply).some((c) => storedIds.has(c.id))) {
    last = new AIMessage({ content: reply.content, tool_calls: reply.tool_calls, invalid_tool_calls: reply.invalid_tool_calls, additional_kwargs: reply.additional_kwargs });
    out.push(last);
    fresh = [...fresh, last];
  }
  if (last) {
    const answered = new Set(fresh.filter((m) => ToolMessage.isInstance(m)).map((m) => m.tool_call_id));
    for (const c of callsOf(last)) {
      if (!answered.has(c.id)) out.push(new ToolMessage({ content: results.get(c.id) ?? 'Error: cancelled', name: c.name ?? '', tool_call_id: c.id ?? '' }));
    }
  }
  out.push(new AIMessage(CANCELLED_TEXT));
  return out;
}

/** The messages of the thread's last checkpoint (not the live state, which also shows writes of
 * the super-step a cancel cut short; the bridge has those results in run.results). */
async function storedMessages(agent, cfg) {
  const live = await agent.getState(cfg);
  if (!live.config) return [];
  const saved = await agent.getState(live.config);
  return [...(saved.values?.messages ?? [])];
}

/** The agent of a session, built once: ChatOpenAI, the tools, a MemorySaver. */
function buildAgent({ client, session, state, provider }) {
  const ock = { client, provider, run: null };
  const fields = {
    model: provider.model,
    apiKey: process.env.OPENAI_API_KEY || 'ock-dummy-key',
    configuration: { baseURL: provider.base_url, defaultHeaders: { [TRACE_HEADER]: client.traceId } },
    maxRetries: 0,
    timeout: session.config.request_timeout_ms,
    streaming: session.config.streaming === true,
    useResponsesApi: false,
  };
  const completions = new ReportingCompletions(fields);
  completions.ock = ock;
  const llm = new ChatOpenAI({ ...fields, completions });
  const agent = createReactAgent({
    llm,
    tools: sessionTools({ client, session, state, ock }),
    checkpointSaver: new MemorySaver(),
    preModelHook: preModelHook({ client, session, state, ock }),
    postModelHook: postModelHook({ client, session, state, ock }),
  });
  return { agent, ock };
}

/**
 * One execute: the events of SPEC.md section 4 around one invoke of the graph. `state` carries
 * what lives across executes: the agent (its checkpointer holds the conversation) and the execute
 * counter.
 */
export async function executeLangGraph({ prompt, client, session, signal }, state) {
  const config = session.config;
  const pending = new Set();
  const run = {
    turns: 0, iteration: 0, ephemeral: [], kept: [], groups: 0, reply: null, results: new Map(), lastContent: '', invoked: new Set(), reported: new Set(), callIds: new Set(), cut: new Map(),
    // The model calls and tool calls the bridge reports, while they run: an aborted invoke
    // returns at once, and their last events must still come before the execute's end.
    track(p) {
      pending.add(p);
      p.then(() => pending.delete(p), () => pending.delete(p));
      return p;
    },
    settled: () => Promise.allSettled([...pending]),
  };
  const complete = (status, extra = {}) =>
    client.emit('orchestrator:complete', { orchestrator: ORCHESTRATOR, turn_count: run.turns, status, ...extra });

  try {
    const { submit, provider, ended } = await openaiPrologue({ prompt, client, session }, complete);
    if (ended) return ended;
    const cancel = cancellation({ client, signal, orchestrator: ORCHESTRATOR, turns: () => run.turns });
    state.graph ??= buildAgent({ client, session, state, provider });
    state.graph.ock.run = run;
    const messages = [new HumanMessage(prompt)];
    const injected = injection(submit);
    if (injected && !injected.ephemeral) messages.push(injectedMessage(injected));
    if (injected && injected.ephemeral) run.ephemeral.push(injected);

    const thread = { configurable: { thread_id: session.trace_id } };
    const before = (await storedMessages(state.graph.agent, thread)).length;
    // The cancel path's repair of the thread, before cancel:completed.
    const repaired = async () => {
      const stored = (await storedMessages(state.graph.agent, thread)).slice(before);
      await state.graph.agent.updateState(thread, { messages: repair(stored, messages, run.reply, run.results) }, 'post_model_hook');
    };
    let result;
    try {
      // A tool round is four supersteps (pre_model_hook, agent, post_model_hook, tools):
      // max_iterations model calls with their tool rounds run, and the next one is over the limit.
      // A round the postModelHook answered whole has three; the preModelHook stops that one.
      result = await state.graph.agent.invoke({ messages }, {
        ...thread,
        recursionLimit: 4 * config.max_iterations,
        signal,
      });
    } catch (e) {
      await run.settled();
      cancel.stop();
      const denied = deniedIn(e);
      if (denied) {
        await client.emit('prompt:complete', { response: `Denied: ${denied.reason}` });
        return await complete('incomplete', { reason: 'denied' });
      }
      if (cancel.requested) {
        await repaired();
        await cancel.finish();
        return await complete('cancelled');
      }
      if (e instanceof GraphRecursionError) {
        await client.emit('prompt:complete', { response: run.lastContent });
        return await complete('incomplete', { reason: 'max_iterations' });
      }
      return await complete('error', { error: providerError(e).error });
    }
    cancel.stop();
    if (cancel.requested) {
      await repaired();
      await cancel.finish();
      return await complete('cancelled');
    }
    const last = result.messages.at(-1);
    await client.emit('prompt:complete', { response: isAIMessage(last) ? textOf(last) : '' });
    return await complete('success');
  } finally {
    state.executes += 1;
  }
}

/** A fresh cross-execute state for executeLangGraph. */
export const newState = () => ({ graph: null, executes: 0 });
