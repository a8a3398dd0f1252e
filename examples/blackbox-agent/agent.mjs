// A plain tool-calling agent: the official openai client, tools from an MCP server, one
// conversation, prompts read one a line from stdin. No line of it knows about OCK.
// `--drop-failed-results` is the classic bug: a failing tool call's result is left out.
import readline from 'node:readline';
import OpenAI from 'openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const dropFailed = process.argv.includes('--drop-failed-results');
const openai = new OpenAI({ maxRetries: 0 });
const mcp = new Client({ name: 'plain-agent', version: '1.0.0' });
await mcp.connect(new StreamableHTTPClientTransport(new URL(process.env.MCP_URL ?? process.env.OCK_MCP_URL)));
const tools = (await mcp.listTools()).tools.map((t) => ({
  type: 'function',
  function: { name: t.name, description: t.description, parameters: t.inputSchema },
}));

const messages = [];
for await (const line of readline.createInterface({ input: process.stdin })) {
  const prompt = line.replace(/\\(n|\\)/g, (_, c) => (c === 'n' ? '\n' : '\\'));
  messages.push({ role: 'user', content: prompt });
  for (;;) {
    const reply = await openai.chat.completions.create({ model: process.env.MODEL ?? 'gpt-4o-mini', messages, tools });
    const message = reply.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) {
      console.log(message.content ?? '');
      break;
    }
    for (const call of message.tool_calls) {
      const result = await mcp.callTool({ name: call.function.name, arguments: JSON.parse(call.function.arguments || '{}') })
        .catch((err) => ({ isError: true, content: [{ type: 'text', text: String(err.message) }] }));
      if (result.isError && dropFailed) continue;
      const text = result.content.map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))).join('\n');
      messages.push({ role: 'tool', tool_call_id: call.id, content: text });
    }
  }
}
await mcp.close();
