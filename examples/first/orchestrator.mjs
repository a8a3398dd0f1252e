// The smallest orchestrator that passes `text-answer`: one LLM turn per prompt, its events, one
// conversation across prompts. No tools, hooks or errors: `ock run` grades what it lacks.
import { runSession } from '../../adapters/js/src/client.js';

const NAME = 'first-js';
const messages = [];
process.exitCode = await runSession(async ({ prompt, client, session }) => {
  const provider = session.providers[0];
  await client.emit('prompt:submit', { prompt });
  messages.push({ role: 'user', content: prompt });
  const turn = { provider: provider.name, model: provider.model, iteration: 1, attempt: 1 };
  await client.emit('provider:request', { ...turn, messages });
  const res = await client.tracedFetch()(`${provider.base_url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
    body: JSON.stringify({ model: provider.model, messages }),
  });
  const choice = (await res.json()).choices[0], text = choice.message.content ?? '';
  await client.emit('provider:response', { ...turn, content: text, tool_calls: [], finish_reason: choice.finish_reason });
  if (text) messages.push({ role: 'assistant', content: text });
  await client.emit('prompt:complete', { prompt, response: text });
  await client.emit('orchestrator:complete', { orchestrator: NAME, turn_count: 1, status: 'success' });
});
