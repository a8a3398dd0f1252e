// Types of ock-adapter/langgraph (src/langgraph.js), written by hand: the bridge's code is typed
// against the framework, which the package does not depend on. test/types.test.js checks that
// the names declared here are the module's exports.
import type { ExecuteContext, HookResult } from './client.js';

/** The `orchestrator` field of the bridge's orchestrator:complete. */
export declare const ORCHESTRATOR: string;

/**
 * What lives across the executes of one session: the agent graph, built at the first execute
 * (its checkpointer holds the conversation), and the execute counter.
 */
export interface LangGraphState {
  graph: unknown;
  executes: number;
}

/** A fresh state, one per session. */
export declare function newState(): LangGraphState;

/**
 * One execute: one `invoke` of the prebuilt ReAct agent with its ock/1 events, ending with
 * orchestrator:complete. Resolves to that event's HookResult.
 */
export declare function executeLangGraph(ctx: ExecuteContext, state: LangGraphState): Promise<HookResult>;

/**
 * The messages a cancelled invoke's thread needs before cancel:completed: the prompt when nothing
 * was stored, a removal of a final answer never delivered, the last reply's calls with their
 * results or "Error: cancelled", then the closing assistant message (LangChain messages).
 */
export declare function repair(stored: unknown[], prompt: unknown[], reply: unknown, results: Map<string, string>): unknown[];
