// A module resolve hook (node:module register) for the bridges' unit tests: each framework a
// bridge imports resolves to a stand-in in this folder, so the bridges run with no framework
// installed and no registry. Everything else resolves as usual.
const FAKES = {
  ai: 'ai.js',
  'ai/package.json': 'ai-package.json',
  '@ai-sdk/openai': 'ai-sdk-provider.js',
  '@ai-sdk/anthropic': 'ai-sdk-provider.js',
  '@ai-sdk/google': 'ai-sdk-provider.js',
  openai: 'openai.js',
  '@openai/agents': 'openai-agents.js',
  '@langchain/openai': 'langgraph.js',
  '@langchain/langgraph': 'langgraph.js',
  '@langchain/langgraph/prebuilt': 'langgraph.js',
  '@langchain/core/tools': 'langgraph.js',
  '@langchain/core/messages': 'langgraph.js',
};

export async function resolve(specifier, context, nextResolve) {
  const file = FAKES[specifier];
  if (file) return { url: new URL(file, import.meta.url).href, shortCircuit: true };
  return nextResolve(specifier, context);
}
