// An unmodified tool-calling agent on an official SDK, for the recording tests of
// `ock record` (tests/frameworks/sdk-record.test.mjs): no line of OCK code. The SDK finds its
// provider and key in its own variables (OPENAI_BASE_URL and OPENAI_API_KEY, ANTHROPIC_BASE_URL
// and ANTHROPIC_API_KEY, GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY), as in production. The
// packages come from the cache make test-frameworks fills (OCK_FRAMEWORKS_CACHE).
//
//   node sdk_agent.mjs --sdk openai-chat|openai-responses|anthropic|genai [--stream]
//                      [--drop-tool-results]  <prompts, one a line
//
// It runs its one tool (get_weather) itself and keeps one conversation over the prompts:
// openai-responses continues it with previous_response_id (the server keeps it), the others
// send the whole history. 429s and 5xx are retried by each SDK after Retry-After (@google/genai
// retries nothing, so the agent does). --drop-tool-results is the classic bug: the result of
// the last call of each reply is left out of the next request.
import { readFileSync } from 'node:fs';
import { importCached } from '../frameworks/harness.mjs';

const args = process.argv.slice(2);
const SDK_NAME = args[args.indexOf('--sdk') + 1];
const STREAM = args.includes('--stream');
const DROP = args.includes('--drop-tool-results');
const SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const weather = (a) => `15 degrees in ${a?.city ?? 'nowhere'}`;
const dropLast = (xs) => (DROP ? xs.slice(0, -1) : xs);

async function openaiChat(prompts) {
  const OpenAI = (await importCached('openai')).default;
  const client = new OpenAI();
  const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: SCHEMA } }];
  const messages = [{ role: 'system', content: 'You are a helpful assistant.' }];
  for (const prompt of prompts) {
    messages.push({ role: 'user', content: prompt });
    for (let i = 0; i < 8; i++) {
      const r = await client.chat.completions.create({ model: 'gpt-prod', messages, tools });
      const m = r.choices[0].message;
      messages.push(m);
      if (!m.tool_calls?.length) {
        console.log(m.content);
        break;
      }
      for (const c of dropLast(m.tool_calls)) {
        messages.push({ role: 'tool', tool_call_id: c.id, content: weather(JSON.parse(c.function.arguments)) });
      }
    }
  }
}

async function openaiResponses(prompts) {
  const OpenAI = (await importCached('openai')).default;
  const client = new OpenAI();
  const tools = [{ type: 'function', name: 'get_weather', description: 'Current weather for a city', strict: false, parameters: SCHEMA }];
  let previous;
  for (const prompt of prompts) {
    let input = [{ role: 'user', content: prompt }];
    for (let i = 0; i < 8; i++) {
      const req = { model: 'gpt-prod', instructions: 'You are a helpful assistant.', input, tools,
        ...(previous ? { previous_response_id: previous } : {}) };
      const r = STREAM ? await client.responses.stream(req).finalResponse() : await client.responses.create(req);
      previous = r.id;
      const calls = r.output.filter((o) => o.type === 'function_call');
      if (!calls.length) {
        console.log(r.output.filter((o) => o.type === 'message').map((o) => o.content.map((p) => p.text).join('')).join(''));
        break;
      }
      input = dropLast(calls).map((c) => ({ type: 'function_call_output', call_id: c.call_id, output: weather(JSON.parse(c.arguments)) }));
    }
  }
}

async function anthropic(prompts) {
  const Anthropic = (await importCached('@anthropic-ai/sdk')).default;
  const client = new Anthropic();
  const tools = [{ name: 'get_weather', description: 'Current weather for a city', input_schema: SCHEMA }];
  const messages = [];
  for (const prompt of prompts) {
    messages.push({ role: 'user', content: prompt });
    for (let i = 0; i < 8; i++) {
      const req = { model: 'claude-prod', max_tokens: 256, system: 'You are a helpful assistant.', messages, tools };
      const r = STREAM ? await client.messages.stream(req).finalMessage() : await client.messages.create(req);
      messages.push({ role: 'assistant', content: r.content });
      const uses = r.content.filter((b) => b.type === 'tool_use');
      if (!uses.length) {
        console.log(r.content.filter((b) => b.type === 'text').map((b) => b.text).join(''));
        break;
      }
      const results = dropLast(uses).map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: weather(u.input) }));
      if (results.length) messages.push({ role: 'user', content: results });
    }
  }
}

/** One Gemini call, retried after a 429 or 5xx as a production agent would (the SDK does not). */
async function geminiCall(ai, ApiError, req) {
  for (let attempt = 0; ; attempt++) {
    try {
      if (!STREAM) return (await ai.models.generateContent(req)).candidates[0].content.parts;
      const parts = [];
      let text = '';
      for await (const c of await ai.models.generateContentStream(req)) {
        for (const p of c.candidates?.[0]?.content?.parts ?? []) {
          if (p.functionCall) parts.push(p);
          else if (p.text) text += p.text;
        }
      }
      return [...(text ? [{ text }] : []), ...parts];
    } catch (e) {
      if (!(e instanceof ApiError) || attempt >= 3 || (e.status !== 429 && e.status < 500)) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

async function genai(prompts) {
  const { GoogleGenAI, ApiError } = await importCached('@google/genai');
  const ai = new GoogleGenAI({});
  const config = { systemInstruction: 'You are a helpful assistant.',
    tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Current weather for a city', parametersJsonSchema: SCHEMA }] }] };
  const contents = [];
  for (const prompt of prompts) {
    contents.push({ role: 'user', parts: [{ text: prompt }] });
    for (let i = 0; i < 8; i++) {
      const parts = await geminiCall(ai, ApiError, { model: 'gemini-prod', contents, config });
      contents.push({ role: 'model', parts });
      const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall);
      if (!calls.length) {
        console.log(parts.map((p) => p.text ?? '').join(''));
        break;
      }
      const answers = dropLast(calls).map((c) => ({ functionResponse: { id: c.id, name: c.name, response: { output: weather(c.args) } } }));
      if (answers.length) contents.push({ role: 'user', parts: answers });
    }
  }
}

const agents = { 'openai-chat': openaiChat, 'openai-responses': openaiResponses, anthropic, genai };
const prompts = readFileSync(0, 'utf8').split('\n').filter((l) => l.trim());
if (!agents[SDK_NAME]) {
  console.error('sdk_agent.mjs: --sdk openai-chat|openai-responses|anthropic|genai');
  process.exit(2);
}
try {
  await agents[SDK_NAME](prompts);
} catch (e) {
  console.error(`${e.constructor?.name}: ${e.message}`);
  process.exit(1);
}
