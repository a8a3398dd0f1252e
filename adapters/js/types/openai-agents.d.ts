// Types of ock-adapter/openai-agents (src/openai-agents.js), written by hand: the bridge's code is
// typed against the framework, which the package does not depend on. test/types.test.js checks
// that the names declared here are the module's exports.
import type { ExecuteContext, HookResult } from './client.js';

/** The `orchestrator` field of the bridge's orchestrator:complete. */
export declare const ORCHESTRATOR: string;

/**
 * What lives across the executes of one session: the SDK's MemorySession (it holds the
 * conversation the Runner reads and adds to), the execute counter.
 */
export interface OpenAIAgentsState {
  session: unknown;
  executes: number;
}

/** A fresh state, one per session. */
export declare function newState(): OpenAIAgentsState;

/**
 * One execute: one `Runner.run` of the Agents SDK on its Responses model (the session's provider
 * on the `responses` wire), streamed when `config.streaming`, with its ock/1 events, ending with
 * orchestrator:complete. Resolves to that event's HookResult.
 */
export declare function executeOpenAIAgents(ctx: ExecuteContext, state: OpenAIAgentsState): Promise<HookResult>;

/**
 * The Runner's items with a run's kept injections placed: each pair is [anchor, item], the anchor
 * a callId (the item goes after the results of that call's round) or a count of items (it goes
 * after that many).
 */
export declare function withKept<T>(items: T[], kept: Array<[string | number, T]>): T[];
