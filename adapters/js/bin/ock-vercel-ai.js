#!/usr/bin/env node
// ock-vercel-ai: the Vercel AI SDK bridge as an ock/1 SUT. `ock run --orchestrator
// "node path/to/ock-vercel-ai.js" --manifest manifests/vercel-ai.json` runs the framework's
// generateText/streamText loop over the session's first provider and tools.
import { runSession } from '../src/client.js';
import { executeVercelAi, newState } from '../src/vercel-ai.js';

const state = newState();
process.exitCode = await runSession((ctx) => executeVercelAi(ctx, state));
