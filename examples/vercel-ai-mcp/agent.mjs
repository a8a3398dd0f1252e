// A plain Vercel AI SDK agent: generateText with tools from an MCP server and a step limit, one
// conversation, prompts read one a line from stdin. No line of it knows about OCK: it is graded
// as it is by `ock run --blackbox` (SPEC.md 9.7), which is how make test-frameworks runs it.
import readline from 'node:readline';
import { generateText, stepCountIs } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { experimental_createMCPClient as createMCPClient } from '@ai-sdk/mcp';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });
const model = openai.chat(process.env.MODEL ?? 'gpt-4o-mini');
const maxSteps = Number(process.env.MAX_STEPS ?? 10);

const mcp = await createMCPClient({
  transport: new StreamableHTTPClientTransport(new URL(process.env.MCP_URL ?? process.env.OCK_MCP_URL)),
});
const tools = await mcp.tools();

const messages = [];
try {
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const prompt = line.replace(/\\(n|\\)/g, (_, c) => (c === 'n' ? '\n' : '\\'));
    if (!prompt.trim()) continue;
    messages.push({ role: 'user', content: prompt });
    try {
      const result = await generateText({ model, tools, messages, stopWhen: stepCountIs(maxSteps) });
      messages.push(...result.responseMessages); // every step's messages (ai 7: response is the last step's)
      console.log(result.text);
    } catch (err) {
      console.error(`error: ${err.message}`);
    }
  }
} finally {
  await mcp.close();
}
