// The ock/1 client (SPEC.md section 7): the session document, events POSTed with their
// HookResult returned for the caller to apply, the tools endpoint, SIGINT as an AbortSignal,
// and `X-OCK-Trace-Id` on every request it makes.
//
// The client never emits an event by itself, never retries, never repairs a history: what the
// kit grades is what the orchestrator (or the framework under a bridge) did.

export const PROTOCOL = 'ock/1';
export const TRACE_HEADER = 'X-OCK-Trace-Id';
// The provider wires of SPEC.md 7.3: Chat Completions, Messages, the Responses API, Gemini.
export const WIRES = Object.freeze(['openai', 'anthropic', 'responses', 'gemini']);
export const HOOK_ACTIONS = Object.freeze(['continue', 'deny', 'modify', 'inject_context', 'ask_user']);

// HTTP statuses SPEC.md 5.7 calls retryable.
export const RETRYABLE_STATUS = Object.freeze([408, 409, 429, 500, 502, 503, 504, 529]);

/** A session document that cannot be used; `path` is the JSON path at fault. */
export class SessionError extends Error {
  constructor(message, path = '$') {
    super(`${path}: ${message}`);
    this.name = 'SessionError';
    this.path = path;
  }
}

/** A tool call that did not yield a ToolResult: `type` is the SPEC.md 4.3.13 error type. */
export class ToolCallError extends Error {
  constructor(type, message, { status = null, body = null } = {}) {
    super(message);
    this.name = 'ToolCallError';
    this.type = type;
    this.status = status;
    this.body = body;
  }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function need(cond, message, path) {
  if (!cond) throw new SessionError(message, path);
}

/**
 * Checks a session document against SPEC.md 7.3 (the fields this client relies on) and returns
 * it. Unknown fields are kept and ignored.
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
  return doc;
}

/**
 * A reply of the events endpoint as a HookResult (SPEC.md 6.3). Anything that is not an object
 * with a known action counts as continue (SPEC.md 5.14); `raw` keeps what was received.
 */
export function hookResult(reply) {
  if (!isObject(reply) || !HOOK_ACTIONS.includes(reply.action)) return { action: 'continue', raw: reply ?? null };
  return { ...reply, ephemeral: reply.ephemeral === true, raw: reply };
}

/** True when the reply vetoes the work the event announces (deny, or ask_user: SPEC.md 5.6). */
export const denies = (result) => result.action === 'deny' || result.action === 'ask_user';

export class OckClient {
  /** @param {{url: string, session: object, fetch?: typeof fetch}} opts */
  constructor({ url, session, fetch: fetchImpl = globalThis.fetch }) {
    this.url = url.replace(/\/+$/, '');
    this.session = session;
    this.traceId = session.trace_id;
    this.fetch = fetchImpl;
  }

  /** Fetches and checks `GET $url/ock/v1/session`. */
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

  /** The headers every request carries. */
  headers(extra = {}) {
    return { [TRACE_HEADER]: this.traceId, ...extra };
  }

  /**
   * POSTs one event and returns its HookResult. The POST is not tied to an abort signal: an
   * event is reported even while its execute is being cancelled. A failed request counts as
   * continue (SPEC.md 5.14) and is reported on stderr.
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
   */
  async callTool(name, toolCallId, input, { signal, timeoutMs } = {}) {
    const timer = timeoutMs ? AbortSignal.timeout(timeoutMs) : null;
    const signals = [signal, timer].filter(Boolean);
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
    return body;
  }

  /** A fetch for LLM SDKs: the same fetch, with `X-OCK-Trace-Id` added to every request. */
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
  constructor(proc = process) {
    this.proc = proc;
    this.controller = null;
    this.ignored = 0;
    this.onSigint = () => {
      if (this.controller && !this.controller.signal.aborted) this.controller.abort(new Error('SIGINT'));
      else this.ignored += 1;
    };
    proc.on('SIGINT', this.onSigint);
  }

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
