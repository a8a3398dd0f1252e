// The type check runs without the frameworks installed (make test needs no registry beyond the
// pinned typescript): each framework module the bridges import is typed `any` here, so what is
// checked is the bridges' own code and their use of the client.
declare module 'ai';
declare module 'ai/package.json';
declare module '@ai-sdk/openai';
declare module '@ai-sdk/anthropic';
declare module '@ai-sdk/google';
declare module 'openai';
declare module '@openai/agents';
// ChatOpenAICompletions is subclassed, so it is declared as a class that takes anything.
declare module '@langchain/openai' {
  export const ChatOpenAI: any;
  export class ChatOpenAICompletions {
    constructor(...args: any[]);
    [key: string]: any;
  }
}
declare module '@langchain/langgraph';
declare module '@langchain/langgraph/prebuilt';
declare module '@langchain/core/tools';
declare module '@langchain/core/messages';
