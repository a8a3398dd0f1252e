#!/usr/bin/env node
// ock-openai-agents: the OpenAI Agents SDK bridge as an ock/1 SUT. `ock run --orchestrator
// "node path/to/ock-openai-agents.js" --manifest manifests/openai-agents.json` runs the SDK's
// Runner with its default Responses API model over the session's first provider and tools.
import { runSession } from '../src/client.js';
import { executeOpenAIAgents, newState } from '../src/openai-agents.js';

const state = newState();
process.exitCode = await runSession((ctx) => executeOpenAIAgents(ctx, state));
