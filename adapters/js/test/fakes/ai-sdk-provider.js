// A stand-in for @ai-sdk/openai, @ai-sdk/anthropic and @ai-sdk/google: a language model whose doGenerate and
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
  return { chat: (id) => model('openai.chat', id, settings), responses: (id) => model('openai.responses', id, settings) };
}

export function createAnthropic(settings) {
  return (id) => model('anthropic.messages', id, settings);
}

export function createGoogleGenerativeAI(settings) {
  return (id) => model('google.generative-ai', id, settings);
}
