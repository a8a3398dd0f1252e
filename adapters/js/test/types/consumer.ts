// Type-checked, never run (tsc -p tsconfig.json): code a TypeScript user writes against the
// package, through its own name, so that `exports` and its `types` conditions are what is
// checked. Each @ts-expect-error is a misuse the declarations must refuse.
import {
  OckClient, runSession, denies, hookResult, parseSession, SessionError, ToolCallError, Interrupts,
  PROTOCOL, TRACE_HEADER, HOOK_ACTIONS, RETRYABLE_STATUS,
  type ExecuteContext, type HookResult, type Session, type ToolResult,
} from 'ock-adapter';
import * as vercel from 'ock-adapter/vercel-ai';
import * as agents from 'ock-adapter/openai-agents';
import * as langgraph from 'ock-adapter/langgraph';

const protocol: 'ock/1' = PROTOCOL;
const header: string = TRACE_HEADER;
const actions: readonly string[] = HOOK_ACTIONS;
const retryable: readonly number[] = RETRYABLE_STATUS;

async function loop({ prompt, client, session, signal }: ExecuteContext): Promise<void> {
  const submit: HookResult = await client.emit('prompt:submit', { prompt });
  if (denies(submit)) return;
  const tool = session.tools[0];
  if (tool) {
    const result: ToolResult = await client.callTool(tool.name, 'call-1', {}, { signal, timeoutMs: session.config.tool_timeout_ms });
    const ok: boolean = result.success;
    void ok;
  }
  const f: typeof fetch = client.tracedFetch();
  void f;
  // @ts-expect-error emit takes the event's data as an object
  await client.emit('prompt:complete', 'text');
  // @ts-expect-error the session's config has no such option
  void session.config.max_iteration;
}

const status: Promise<number> = runSession(loop);
const connected: Promise<OckClient> = OckClient.connect('http://127.0.0.1:1');
const parsed: Session = parseSession({});
const read: HookResult = hookResult(null);
const sessionError: string = new SessionError('bad', '$.prompts').path;
const toolError: 'execution_failed' | 'timeout' | 'cancelled' = new ToolCallError('timeout', 'slow').type;
// @ts-expect-error not a ToolCallError type
new ToolCallError('slow', 'x');
const signal: AbortSignal = new Interrupts(process).begin();

const vState = vercel.newState();
const aState = agents.newState();
const lState = langgraph.newState();
const names: string[] = [vercel.ORCHESTRATOR, agents.ORCHESTRATOR, langgraph.ORCHESTRATOR];
runSession((ctx) => vercel.executeVercelAi(ctx, vState));
runSession((ctx) => agents.executeOpenAIAgents(ctx, aState));
runSession((ctx) => langgraph.executeLangGraph(ctx, lState));
// @ts-expect-error a bridge's execute takes its state
runSession((ctx) => vercel.executeVercelAi(ctx));
const model = vercel.sessionModel(parsed, await connected);

export { protocol, header, actions, retryable, status, read, sessionError, toolError, signal, names, model };
