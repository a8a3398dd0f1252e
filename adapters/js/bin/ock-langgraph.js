#!/usr/bin/env node
// ock-langgraph: the LangGraph bridge as an ock/1 SUT. `ock run --orchestrator
// "node path/to/ock-langgraph.js" --manifest manifests/langgraph.json` runs LangGraph's prebuilt
// ReAct agent with @langchain/openai's ChatOpenAI over the session's first provider and tools.
import { runSession } from '../src/client.js';
import { executeLangGraph, newState } from '../src/langgraph.js';

const state = newState();
process.exitCode = await runSession((ctx) => executeLangGraph(ctx, state));
