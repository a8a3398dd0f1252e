// What every framework bridge shares, and nothing framework-specific: how a HookResult is read
// (deny reason, injections), how tool arguments and ToolResults become event fields and result
// texts (SPEC.md 5.6, 5.11), which session provider a bridge talks to, and the provider:error
// fields of an exception thrown by an LLM SDK. No framework is imported here, so each bridge
// loads only the framework it bridges.
import { RETRYABLE_STATUS, ToolCallError, denies } from './client.js';

/** @typedef {import('./client.js').HookResult} HookResult */
/** @typedef {import('./client.js').ToolResult} ToolResult */
/** @typedef {import('./client.js').Session} Session */
/** @typedef {import('./client.js').Provider} Provider */
/** @typedef {import('./client.js').OckClient} OckClient */
/** @typedef {{role: 'system' | 'user' | 'assistant', text: string, ephemeral: boolean | undefined}} Injection */
/**
 * @typedef {object} ProviderErrorFields
 * @property {{type: string, message: string}} error
 * @property {boolean} retryable
 * @property {number | null} status_code
 */

/** @type {(v: unknown) => v is Record<string, any>} */
export const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * SPEC.md 5.6: the reason of a deny or ask_user reply.
 * @param {HookResult} result
 * @returns {string}
 */
export function denyReason(result) {
  if (result.action === 'ask_user') return 'No approval system available';
  return typeof result.reason === 'string' && result.reason !== '' ? result.reason : 'no reason given';
}

/**
 * The arguments of a tool call as an event field (SPEC.md 4.3.6, 4.3.11): the JSON object they
 * parse to, `{}` for an empty string, else the raw string. A value that is already parsed is
 * returned as it is.
 * @param {unknown} raw
 * @returns {unknown}
 */
export function parseArguments(raw) {
  if (typeof raw !== 'string') return raw;
  if (raw.trim() === '') return {};
  try {
    const v = JSON.parse(raw);
    return isObject(v) ? v : raw;
  } catch {
    return raw;
  }
}

/**
 * SPEC.md 5.11: the text of a ToolResult.
 * @param {ToolResult} result
 * @returns {string}
 */
export function resultText(result) {
  if (result.success === false) {
    const msg = result.error?.message;
    return `Error: ${typeof msg === 'string' && msg !== '' ? msg : 'unknown error'}`;
  }
  if (typeof result.output === 'string') return result.output;
  return JSON.stringify(result.output ?? null);
}

/** The closing assistant message a bridge stores after a cancel (SPEC.md 5.10; its wording: OCK-TEXT-010). */
export const CANCELLED_TEXT = 'The previous operation was cancelled.';

/**
 * The injection an inject_context reply asks for, or null (SPEC.md 5.6).
 * @param {HookResult} result
 * @returns {Injection | null}
 */
export function injection(result) {
  if (result.action !== 'inject_context') return null;
  if (typeof result.context_injection !== 'string' || result.context_injection === '') return null;
  return { role: result.context_injection_role || 'system', text: result.context_injection, ephemeral: result.ephemeral };
}

/**
 * A call of a session tool at the tools endpoint (SPEC.md 5.7), then its tool:post, or its
 * tool:error when the call failed: the text of the call's tool result (SPEC.md 5.11), and the
 * injection the tool:post reply asks for, which the bridge places as its framework allows, and
 * whether the call failed (a tool:error, or a ToolResult with success false), for a framework
 * that sends a failure to the model in a form of its own.
 * @param {OckClient} client
 * @param {{tool_call_id: string, tool_name: string, parallel_group_id: string}} base the events' ids
 * @param {unknown} input the arguments the tool runs on
 * @param {{signal?: AbortSignal, timeoutMs?: number}} options
 * @returns {Promise<{text: string, injection: Injection | null, failed: boolean}>}
 */
export async function callAtEndpoint(client, base, input, { signal, timeoutMs }) {
  let result;
  try {
    result = await client.callTool(base.tool_name, base.tool_call_id, input, { signal, timeoutMs });
  } catch (e) {
    const type = e instanceof ToolCallError ? e.type : 'execution_failed';
    await client.emit('tool:error', { ...base, error: { type, message: e.message }, tool_input: input });
    return { text: type === 'cancelled' ? 'Error: cancelled' : `Error: ${e.message}`, injection: null, failed: true };
  }
  const post = await client.emit('tool:post', { ...base, result, tool_input: input });
  return { text: resultText(result), injection: injection(post), failed: result?.success === false };
}

/** A deny or ask_user reply to prompt:submit or provider:request, thrown out of the framework's loop. */
export class Denied extends Error {
  /** @param {string} reason */
  constructor(reason) {
    super(`Denied: ${reason}`);
    this.name = 'OckDenied';
    this.reason = reason;
  }
}

/**
 * The Denied at the root of an exception the framework may have wrapped (cause chain), or null.
 * @param {any} e
 * @returns {Denied | null}
 */
export function deniedIn(e) {
  for (let cur = e, depth = 0; cur && depth < 8; cur = cur.cause, depth += 1)
    if (cur instanceof Denied) return cur;
  return null;
}

/**
 * The session's first provider: lowest priority number, then order; null when there is none.
 * @param {Session} session
 * @returns {Provider | null}
 */
export function firstProvider(session) {
  const providers = [...session.providers].sort((a, b) => (a.priority ?? 100) - (b.priority ?? 100));
  return providers[0] ?? null;
}

/**
 * The provider:error fields (error, retryable, status_code) of an exception thrown by the official
 * openai client or a framework over it: the HTTP status from `status` or `statusCode`, a timeout,
 * a cancellation or a failed connection from the error's name.
 * @param {any} e
 * @returns {ProviderErrorFields}
 */
export function providerError(e) {
  let status = null;
  for (let cur = e, depth = 0; cur && depth < 8 && status === null; cur = cur.cause, depth += 1) {
    if (Number.isInteger(cur.status)) status = cur.status;
    else if (Number.isInteger(cur.statusCode)) status = cur.statusCode;
  }
  const name = e?.name ?? '';
  let type = 'connection_error';
  if (status !== null) type = 'http_error';
  else if (/Timeout/.test(name)) type = 'timeout';
  else if (name === 'AbortError' || name === 'APIUserAbortError') type = 'cancelled';
  else if (e instanceof SyntaxError || /JSON/.test(e?.message ?? '')) type = 'malformed_response';
  const text = String(e?.message || name || 'provider error');
  const message = status !== null ? `HTTP ${status}: ${text}` : text;
  const retryable = status !== null ? RETRYABLE_STATUS.includes(status) : type === 'connection_error' || type === 'timeout';
  return { error: { type, message }, retryable, status_code: status };
}

/**
 * The start of an execute for a bridge that speaks one OpenAI wire (`wires`, default Chat
 * Completions): prompt:submit, then the checks of SPEC.md 5.2 (an empty prompt, no provider, a
 * provider on another wire) and a deny of
 * prompt:submit, each ending the execute through complete(status, extra). Returns the
 * prompt:submit reply and the provider, or `ended` (what complete returned) when it ended.
 * @param {{prompt: string, client: OckClient, session: Session}} ctx
 * @param {(status: string, extra?: Record<string, unknown>) => Promise<unknown>} complete
 * @returns {Promise<{submit: HookResult, provider: Provider, ended?: undefined} | {ended: unknown, submit?: undefined, provider?: undefined}>}
 */
export async function openaiPrologue({ prompt, client, session }, complete, wires = ['openai']) {
  const submit = await client.emit('prompt:submit', { prompt });
  const provider = firstProvider(session);
  /** @type {(type: string, message: string) => Promise<{ended: unknown}>} */
  const fail = async (type, message) => ({ ended: (await complete('error', { error: { type, message } })) ?? true });
  if (prompt.trim() === '') return fail('invalid_input', 'the prompt is empty');
  if (!provider) return fail('no_provider', 'the session has no provider');
  if (!wires.includes(provider.api))
    return fail('no_provider', `the bridge speaks the ${wires.join(', ')} wire only; provider ${provider.name} is ${provider.api}`);
  if (denies(submit)) {
    await client.emit('prompt:complete', { response: `Denied: ${denyReason(submit)}` });
    return { ended: (await complete('incomplete', { reason: 'denied' })) ?? true };
  }
  return { submit, provider };
}

/**
 * Capability cancellation (SPEC.md 5.10) over the framework's own abort signal: the first abort of
 * `signal` while the execute works sends cancel:requested at once (the framework, which got the
 * same signal, stops its requests and tools); `finish()` is called before the execute's outcome
 * is reported and says whether it was cancelled, after sending cancel:completed. An abort after
 * `stop()` (the answer is given, or the execute never started work) is not a cancellation.
 * `turns()` gives the turn count the events carry.
 * @param {{client: OckClient, signal: AbortSignal, orchestrator: string, turns: () => number}} ctx
 * @returns {{stop(): void, readonly requested: boolean, finish(): Promise<boolean>}}
 */
export function cancellation({ client, signal, orchestrator, turns }) {
  /** @type {Promise<HookResult> | null} */
  let requested = null;
  let active = true;
  const onAbort = () => {
    if (!active || requested) return;
    requested = client.emit('cancel:requested', { orchestrator, turn_count: turns() });
  };
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  return {
    stop() {
      active = false;
      signal.removeEventListener('abort', onAbort);
    },
    get requested() {
      return requested !== null;
    },
    async finish() {
      this.stop();
      if (!requested) return false;
      await requested;
      await client.emit('cancel:completed', { orchestrator, turn_count: turns() });
      return true;
    },
  };
}
