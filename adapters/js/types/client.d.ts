/**
 * Checks a session document against SPEC.md 7.3 (the fields this client relies on) and returns
 * it. Unknown fields are kept and ignored.
 * @param {unknown} doc
 * @returns {Session}
 */
export function parseSession(doc: unknown): Session;
/**
 * A reply of the events endpoint as a HookResult (SPEC.md 6.3). Anything that is not an object
 * with a known action counts as continue (SPEC.md 5.14); `raw` keeps what was received.
 * @param {unknown} reply
 * @returns {HookResult}
 */
export function hookResult(reply: unknown): HookResult;
/**
 * Runs `execute({prompt, index, client, session, signal})` once per session prompt, in order,
 * with SIGINT cancelling the running execute through `signal`. An exception escaping execute is
 * printed to stderr and the next prompt runs. Resolves to the exit status: 0 after the last
 * prompt, 2 when the session cannot be read.
 * @param {Execute} execute
 * @param {{url?: string, fetch?: Fetch}} [opts]
 * @returns {Promise<number>}
 */
export function runSession(execute: Execute, { url, fetch: fetchImpl }?: {
    url?: string;
    fetch?: Fetch;
}): Promise<number>;
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
export const PROTOCOL: "ock/1";
export const TRACE_HEADER: "X-OCK-Trace-Id";
export const WIRES: readonly string[];
export const HOOK_ACTIONS: readonly string[];
export const RETRYABLE_STATUS: readonly number[];
/** A session document that cannot be used; `path` is the JSON path at fault. */
export class SessionError extends Error {
    /**
     * @param {string} message
     * @param {string} [path]
     */
    constructor(message: string, path?: string);
    path: string;
}
/** A tool call that did not yield a ToolResult: `type` is the SPEC.md 4.3.13 error type. */
export class ToolCallError extends Error {
    /**
     * @param {ToolCallErrorType} type
     * @param {string} message
     * @param {{status?: number | null, body?: unknown}} [details] the reply's HTTP status and body
     */
    constructor(type: ToolCallErrorType, message: string, { status, body }?: {
        status?: number | null;
        body?: unknown;
    });
    type: ToolCallErrorType;
    status: number | null;
    body: unknown;
}
/**
 * True when the reply vetoes the work the event announces (deny, or ask_user: SPEC.md 5.6).
 * @type {(result: HookResult) => boolean}
 */
export const denies: (result: HookResult) => boolean;
export class OckClient {
    /**
     * Fetches and checks `GET $url/ock/v1/session`.
     * @param {string} [url]
     * @param {{fetch?: Fetch}} [opts]
     * @returns {Promise<OckClient>}
     */
    static connect(url?: string, { fetch: fetchImpl }?: {
        fetch?: Fetch;
    }): Promise<OckClient>;
    /** @param {{url: string, session: Session, fetch?: Fetch}} opts */
    constructor({ url, session, fetch: fetchImpl }: {
        url: string;
        session: Session;
        fetch?: Fetch;
    });
    url: string;
    session: Session;
    traceId: string;
    fetch: typeof fetch;
    /**
     * The headers every request carries.
     * @param {Record<string, string>} [extra]
     * @returns {Record<string, string>}
     */
    headers(extra?: Record<string, string>): Record<string, string>;
    /**
     * POSTs one event and returns its HookResult. The POST is not tied to an abort signal: an
     * event is reported even while its execute is being cancelled. A failed request counts as
     * continue (SPEC.md 5.14) and is reported on stderr.
     * @param {string} event
     * @param {Record<string, unknown>} data
     * @returns {Promise<HookResult>}
     */
    emit(event: string, data: Record<string, unknown>): Promise<HookResult>;
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
    callTool(name: string, toolCallId: string, input: unknown, { signal, timeoutMs }?: {
        signal?: AbortSignal;
        timeoutMs?: number;
    }): Promise<ToolResult>;
    /**
     * A fetch for LLM SDKs: the same fetch, with `X-OCK-Trace-Id` added to every request.
     * @returns {Fetch}
     */
    tracedFetch(): Fetch;
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
    constructor(proc?: {
        on(event: "SIGINT", listener: () => void): unknown;
        off(event: "SIGINT", listener: () => void): unknown;
    });
    proc: {
        on(event: "SIGINT", listener: () => void): unknown;
        off(event: "SIGINT", listener: () => void): unknown;
    };
    /** @type {AbortController | null} */
    controller: AbortController | null;
    ignored: number;
    onSigint: () => void;
    /** @returns {AbortSignal} */
    begin(): AbortSignal;
    end(): void;
    /** Stops listening; SIGINT keeps being ignored rather than ending the process. */
    close(): void;
}
/**
 * The scenario's options (SPEC.md 7.4), every default filled in.
 */
export type SessionConfig = {
    max_iterations: number;
    parallel_tools: boolean;
    streaming: boolean;
    error_strategy: "fail_fast" | "continue" | "retry" | "fallback";
    max_retries: number;
    retry_base_delay_ms: number;
    retry_max_delay_ms: number;
    retry_jitter: number;
    tool_timeout_ms: number;
    request_timeout_ms: number;
    mode: "basic" | "streaming" | "events";
};
/**
 * One LLM endpoint of the session (SPEC.md 7.3).
 */
export type Provider = {
    name: string;
    api: "openai" | "anthropic" | "responses" | "gemini";
    base_url: string;
    model: string;
    /**
     * lower first
     */
    priority?: number | undefined;
};
/**
 * A tool the session offers (SPEC.md 7.3).
 */
export type ToolSpec = {
    name: string;
    description?: string | undefined;
    /**
     * its JSON Schema
     */
    input_schema: Record<string, unknown>;
};
/**
 * The session document of `GET /ock/v1/session` (SPEC.md 7.3). Fields
 * this client does not know are kept.
 */
export type Session = {
    protocol: "ock/1";
    scenario: string;
    trace_id: string;
    mcp_url?: string | undefined;
    prompts: string[];
    config: SessionConfig;
    providers: Provider[];
    tools: ToolSpec[];
};
export type HookAction = "continue" | "deny" | "modify" | "inject_context" | "ask_user";
/**
 * A reply of the events endpoint as read by `hookResult` (SPEC.md
 * 6.3): `raw` is what was received.
 */
export type HookResult = {
    action: HookAction;
    reason?: string | undefined;
    data?: {
        tool_input?: Record<string, unknown>;
        tool?: string;
    } | undefined;
    context_injection?: string | undefined;
    context_injection_role?: "system" | "user" | "assistant" | undefined;
    /**
     * always a boolean when the action is a known one
     */
    ephemeral?: boolean | undefined;
    raw: unknown;
};
/**
 * What a tool endpoint returns (SPEC.md 6.2).
 */
export type ToolResult = {
    success: boolean;
    output?: unknown;
    error?: {
        type: string;
        message: string;
    } | null | undefined;
};
export type ToolCallErrorType = "execution_failed" | "timeout" | "cancelled";
/**
 * What `runSession` hands to each execute.
 */
export type ExecuteContext = {
    /**
     * the session prompt this execute answers
     */
    prompt: string;
    /**
     * its position in `session.prompts`
     */
    index: number;
    client: OckClient;
    session: Session;
    /**
     * aborted by the first SIGINT during this execute
     */
    signal: AbortSignal;
};
export type Execute = (ctx: ExecuteContext) => unknown;
export type Fetch = typeof globalThis.fetch;
