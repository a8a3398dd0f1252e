// The ock/1 client (SPEC.md section 7): the session document, events POSTed with their
// HookResult returned for the caller to apply, the tools endpoint, SIGINT as an AbortSignal,
// and `X-OCK-Trace-Id` on every request it makes.
//
// The client never emits an event by itself, never retries, never repairs a history: what the
// kit grades is what the orchestrator (or the framework under a bridge) did.

/**
 * @typedef {object} SessionConfig The scenario's options (SPEC.md 7.4), every default filled in.
 * @property {number} max_iterations
 * @property {boolean} parallel_tools
 * @property {boolean} streaming
 * @property {'fail_fast' | 'continue' | 'retry' | 'fallback'} error_strategy
 * @property {number} max_retries
 * @property {number} retry_base_delay_ms
 * @property {number} retry_max_delay_ms
 * @property {number} retry_jitter
 * @property {number} tool_timeout_ms
 * @property {number} request_timeout_ms
 * @property {'basic' | 'streaming' | 'events'} mode
 */

/**
 * @typedef {object} Provider One LLM endpoint of the session (SPEC.md 7.3).
 * @property {string} name
 * @property {'openai' | 'anthropic' | 'responses' | 'gemini'} api
 * @property {string} base_url
 * @property {string} model
 * @property {number} [priority] lower first
 */

/**
 * @typedef {object} ToolSpec A tool the session offers (SPEC.md 7.3).
 * @property {string} name
 * @property {string} [description]
 * @property {Record<string, unknown>} input_schema its JSON Schema
 */

/**
 * @typedef {object} Session The session document of `GET /ock/v1/session` (SPEC.md 7.3). Fields
 * this client does not know are kept.
 * @property {'ock/1'} protocol
 * @property {string} scenario
 * @property {string} trace_id
 * @property {string} [mcp_url]
 * @property {string[]} prompts
 * @property {SessionConfig} config
 * @property {Provider[]} providers
 * @property {ToolSpec[]} tools
 */

/** @typedef {'continue' | 'deny' | 'modify' | 'inject_context' | 'ask_user'} HookAction */

/**
 * @typedef {object} HookResult A reply of the events endpoint as read by `hookResult` (SPEC.md
 * 6.3): `raw` is what was received.
 * @property {HookAction} action
 * @property {string} [reason]
 * @property {{tool_input?: Record<string, unknown>, tool?: string}} [data]
 * @property {string} [context_injection]
 * @property {'system' | 'user' | 'assistant'} [context_injection_role]
 * @property {boolean} [ephemeral] always a boolean when the action is a known one
 * @property {unknown} raw
 */

/**
 * @typedef {object} ToolResult What a tool endpoint returns (SPEC.md 6.2).
 * @property {boolean} success
 * @property {unknown} [output]
 * @property {{type: string, message: string} | null} [error]
 */

/** @typedef {'execution_failed' | 'timeout' | 'cancelled'} ToolCallErrorType */

/**
 * @typedef {object} ExecuteContext What `runSession` hands to each execute.
 * @property {string} prompt the session prompt this execute answers
 * @property {number} index its position in `session.prompts`
 * @property {OckClient} client
 * @property {Session} session
 * @property {AbortSignal} signal aborted by the first SIGINT during this execute
 */

/** @typedef {(ctx: ExecuteContext) => unknown} Execute */

/** @typedef {typeof globalThis.fetch} Fetch */

export const PROTOCOL = 'ock/1';
export const TRACE_HEADER = 'X-OCK-Trace-Id';
// The provider wires of SPEC.md 7.3: Chat Completions, Messages, the Responses API, Gemini.
export const WIRES = Object.freeze(['openai', 'anthropic', 'responses', 'gemini']);
export const HOOK_ACTIONS = Object.freeze(['continue', 'deny', 'modify', 'inject_context', 'ask_user']);

// HTTP statuses SPEC.md 5.7 calls retryable.
export const RETRYABLE_STATUS = Object.freeze([408, 409, 429, 500, 502, 503, 504, 529]);

/** A session document that cannot be used; `path` is the JSON path at fault. */
export class SessionError extends Error {
  /**
   * @param {string} message
   * @param {string} [path]
   */
  constructor(message, path = '$') {
    super(`${path}: ${message}`);
    this.name = 'SessionError';
    this.path = path;
  }
}

/** A tool call that did not yield a ToolResult: `type` is the SPEC.md 4.3.13 error type. */
export class ToolCallError extends Error {
  /**
   * @param {ToolCallErrorType} type
   * @param {string} message
   * @param {{status?: number | null, body?: unknown}} [details] the reply's HTTP status and body
   */
  constructor(type, message, { status = null, body = null } = {}) {
    super(message);
    this.name = 'ToolCallError';
    this.type = type;
    this.status = status;
    this.body = body;
  }
}

/** @type {(v: unknown) => v is Record<string, any>} */
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * @param {unknown} cond
 * @param {string} message
 * @param {string} path
 * @returns {asserts cond}
 */
function need(cond, message, path) {
  if (!cond) throw new SessionError(message, path);
}

/**
 * Checks a session document against SPEC.md 7.3 (the fields this client relies on) and returns
 * it. Unknown fields are kept and ignored.
 * @param {unknown} doc
 * @returns {Session}
 */
export function parseSession(doc) {
  need(isObject(doc), 'expected a JSON object', '$');
  need(doc.protocol === PROTOCOL, `expected "${PROTOCOL}", got ${JSON.stringify(doc.protocol)}`, '$.protocol');
  need(typeof doc.scenario === 'string', 'expected a string', '$.scenario');
  need(typeof doc.trace_id === 'string' && doc.trace_id.length > 0, 'expected a non-empty string', '$.trace_id');
  need(Array.isArray(doc.prompts), 'expected an array', '$.prompts');
  doc.prompts.forEach((p, i) => need(typeof p === 'string', 'expected a string', `$.prompts[${i}]`));
  need(isObject(doc.config), 'expected an object', '$.config');
  need(Array.isArray(doc.providers), 'expected an array', '$.providers');
  doc.providers.forEach((p, i) => {
    const at = `$.providers[${i}]`;
    need(isObject(p), 'expected an object', at);
    for (const k of ['name', 'api', 'base_url', 'model'])
      need(typeof p[k] === 'string', 'expected a string', `${at}.${k}`);
    need(WIRES.includes(p.api), `expected one of ${WIRES.map((w) => `"${w}"`).join(', ')}`, `${at}.api`);
  });
  need(Array.isArray(doc.tools), 'expected an array', '$.tools');
  doc.tools.forEach((t, i) => {
    const at = `$.tools[${i}]`;
    need(isObject(t), 'expected an object', at);
    need(typeof t.name === 'string', 'expected a string', `${at}.name`);
    need(isObject(t.input_schema), 'expected an object', `${at}.input_schema`);
  });
  return /** @type {Session} */ (doc);
}

/**
 * A reply of the events endpoint as a HookResult (SPEC.md 6.3). Anything that is not an object
 * with a known action counts as continue (SPEC.md 5.14); `raw` keeps what was received.
 * @param {unknown} reply
 * @returns {HookResult}
 */
export function hookResult(reply) {
  if (!isObject(reply) || !HOOK_ACTIONS.includes(reply.action)) return { action: 'continue', raw: reply ?? null };
  return /** @type {HookResult} */ ({ ...reply, ephemeral: reply.ephemeral === true, raw: reply });
}

/**
 * True when the reply vetoes the work the event announces (deny, or ask_user: SPEC.md 5.6).
 * @type {(result: HookResult) => boolean}
 */
export const denies = (result) => result.action === 'deny' || result.action === 'ask_user';

export class OckClient {
  /** @param {{url: string, session: Session, fetch?: Fetch}} opts */
  constructor({ url, session, fetch: fetchImpl = globalThis.fetch }) {
    this.url = url.replace(/\/+$/, '');
    this.session = session;
    this.traceId = session.trace_id;
    this.fetch = fetchImpl;
  }

  /**
   * Fetches and checks `GET $url/ock/v1/session`.
   * @param {string} [url]
   * @param {{fetch?: Fetch}} [opts]
   * @returns {Promise<OckClient>}
   */
  static async connect(url = process.env.OCK_URL, { fetch: fetchImpl = globalThis.fetch } = {}) {
    if (!url) throw new SessionError('OCK_URL is not set and no URL was given', 'OCK_URL');
    const root = url.replace(/\/+$/, '');
    const res = await fetchImpl(`${root}/ock/v1/session`);
    if (res.status !== 200) throw new SessionError(`GET /ock/v1/session returned HTTP ${res.status}`);
    let doc;
    try {
      doc = await res.json();
    } catch (e) {
      throw new SessionError(`the session is not JSON (${e.message})`);
    }
    return new OckClient({ url: root, session: parseSession(doc), fetch: fetchImpl });
  }

  /**
   * The headers every request carries.
   * @param {Record<string, string>} [extra]
   * @returns {Record<string, string>}
   */
  headers(extra = {}) {
    return { [TRACE_HEADER]: this.traceId, ...extra };
  }

  /**
   * POSTs one event and returns its HookResult. The POST is not tied to an abort signal: an
   * event is reported even while its execute is being cancelled. A failed request counts as
   * continue (SPEC.md 5.14) and is reported on stderr.
   * @param {string} event
   * @param {Record<string, unknown>} data
   * @returns {Promise<HookResult>}
   */
  async emit(event, data) {
    let res;
    try {
      res = await this.fetch(`${this.url}/ock/v1/events`, {
        method: 'POST',
        headers: this.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ event, data }),
      });
    } catch (e) {
      process.stderr.write(`[ock-adapter] event ${event}: request failed (${e.message}); treated as continue\n`);
      return hookResult(null);
    }
    const text = await res.text();
    if (res.status !== 200) {
      process.stderr.write(`[ock-adapter] event ${event}: HTTP ${res.status}; treated as continue\n`);
      return hookResult(null);
    }
    try {
      return hookResult(JSON.parse(text));
    } catch {
      return hookResult(null);
    }
  }

  /**
   * Runs a tool through `POST $url/ock/v1/tools/{name}` and returns the ToolResult unchanged.
   * Throws ToolCallError: `execution_failed` for a non-2xx status, a failed connection or a body
   * that is not a ToolResult; `timeout` after `timeoutMs`; `cancelled` when `signal` aborts.
   * @param {string} name
   * @param {string} toolCallId
   * @param {unknown} input
   * @param {{signal?: AbortSignal, timeoutMs?: number}} [opts]
   * @returns {Promise<ToolResult>}
   */
  async callTool(name, toolCallId, input, { signal, timeoutMs } = {}) {
    const timer = timeoutMs ? AbortSignal.timeout(timeoutMs) : null;
    const signals = /** @type {AbortSignal[]} */ ([signal, timer].filter(Boolean));
    let res;
    try {
      res = await this.fetch(`${this.url}/ock/v1/tools/${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: this.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ tool_call_id: toolCallId, input }),
        signal: signals.length ? AbortSignal.any(signals) : undefined,
      });
    } catch (e) {
      if (signal?.aborted) throw new ToolCallError('cancelled', 'the tool call was cancelled');
      if (timer?.aborted) throw new ToolCallError('timeout', `no reply within ${timeoutMs} ms`);
      throw new ToolCallError('execution_failed', `tool endpoint connection failed: ${e.message}`);
    }
    let body = null;
    try {
      body = JSON.parse(await res.text());
    } catch {
      body = null;
    }
    if (res.status < 200 || res.status > 299)
      throw new ToolCallError('execution_failed', `tool endpoint returned HTTP ${res.status}`, { status: res.status, body });
    if (!isObject(body) || typeof body.success !== 'boolean')
      throw new ToolCallError('execution_failed', 'tool endpoint reply is not a ToolResult', { status: res.status, body });
    return /** @type {ToolResult} */ (body);
  }

  /**
   * A fetch for LLM SDKs: the same fetch, with `X-OCK-Trace-Id` added to every request.
   * @returns {Fetch}
   */
  tracedFetch() {
    return (input, init = {}) => {
      const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
      headers.set(TRACE_HEADER, this.traceId);
      return this.fetch(input, { ...init, headers });
    };
  }
}

/**
 * SIGINT as an AbortSignal (SPEC.md 7.8): `begin()` arms a new signal for one execute, the first
 * SIGINT during it aborts that signal (later ones are ignored), `end()` disarms it. A SIGINT
 * between executes is ignored, and SIGINT never ends the process while this is installed.
 */
export class Interrupts {
  /**
   * @param {{on(event: 'SIGINT', listener: () => void): unknown, off(event: 'SIGINT', listener: () => void): unknown}} [proc]
   *   the process (a stand-in in tests)
   */
  constructor(proc = process) {
    this.proc = proc;
    /** @type {AbortController | null} */
    this.controller = null;
    this.ignored = 0;
    this.onSigint = () => {
      if (this.controller && !this.controller.signal.aborted) this.controller.abort(new Error('SIGINT'));
      else this.ignored += 1;
    };
    proc.on('SIGINT', this.onSigint);
  }

  /** @returns {AbortSignal} */
  begin() {
    this.controller = new AbortController();
    return this.controller.signal;
  }

  end() {
    this.controller = null;
  }

  /** Stops listening; SIGINT keeps being ignored rather than ending the process. */
  close() {
    this.proc.off('SIGINT', this.onSigint);
    this.proc.on('SIGINT', () => {});
  }
}

/**
 * Runs `execute({prompt, index, client, session, signal})` once per session prompt, in order,
 * with SIGINT cancelling the running execute through `signal`. An exception escaping execute is
 * printed to stderr and the next prompt runs. Resolves to the exit status: 0 after the last
 * prompt, 2 when the session cannot be read.
 * @param {Execute} execute
 * @param {{url?: string, fetch?: Fetch}} [opts]
 * @returns {Promise<number>}
 */
export async function runSession(execute, { url = process.env.OCK_URL, fetch: fetchImpl } = {}) {
  const interrupts = new Interrupts();
  let client;
  try {
    client = await OckClient.connect(url, fetchImpl ? { fetch: fetchImpl } : {});
  } catch (e) {
    process.stderr.write(`[ock-adapter] cannot read the session: ${e.message}\n`);
    interrupts.close();
    return 2;
  }
  const { session } = client;
  for (const [index, prompt] of session.prompts.entries()) {
    const signal = interrupts.begin();
    try {
      await execute({ prompt, index, client, session, signal });
    } catch (e) {
      process.stderr.write(`[ock-adapter] execute ${index + 1}: exception escaped: ${e?.stack ?? e}\n`);
    } finally {
      interrupts.end();
    }
  }
  interrupts.close();
  return 0;
}
