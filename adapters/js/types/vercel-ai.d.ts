// Types of ock-adapter/vercel-ai (src/vercel-ai.js), written by hand: the bridge's code is typed
// against the framework, which the package does not depend on. test/types.test.js checks that
// the names declared here are the module's exports.
import type { ExecuteContext, HookResult, OckClient, Provider, Session } from './client.js';

/** The `orchestrator` field of the bridge's orchestrator:complete. */
export declare const ORCHESTRATOR: string;

/**
 * What lives across the executes of one session: the message history, the kept system
 * injections of a Gemini session (sent as its instructions), the execute counter.
 */
export interface VercelAiState {
  history: unknown[];
  instructions: string[];
  executes: number;
}

/** A fresh state, one per session. */
export declare function newState(): VercelAiState;

/**
 * The AI SDK language model of the session's first provider, on its wire: `@ai-sdk/openai`'s Chat
 * Completions model (`openai`) or its Responses model (`responses`), `@ai-sdk/anthropic`
 * (`anthropic`) or `@ai-sdk/google` (`gemini`); null when the session has none.
 */
export declare function sessionModel(session: Session, client: OckClient): { provider: Provider; model: unknown } | null;

/**
 * One execute: one `generateText` (or `streamText` when `config.streaming`) call with its ock/1
 * events, ending with orchestrator:complete. Resolves to that event's HookResult.
 */
export declare function executeVercelAi(ctx: ExecuteContext, state: VercelAiState): Promise<HookResult>;
