// A stand-in for @ai-sdk/openai and @ai-sdk/anthropic: a language model whose doGenerate and
// doStream answer from the fake `ai`'s scripted replies (a streamed reply is `{stream: [parts]}`).
import { nextReply } from './ai.js';

function model(provider, modelId, settings) {
  return {
    provider, modelId, settings,
    doGenerate: async () => nextReply(),
    doStream: async () => {
      const { stream } = nextReply();
      return { stream: ReadableStream.from(stream) };
    },
  };
}

export function createOpenAI(settings) {
  return { chat: (id) => model('openai.chat', id, settings) };
}

export function createAnthropic(settings) {
  return (id) => model('anthropic.messages', id, settings);
}
