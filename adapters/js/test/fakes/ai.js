// A stand-in for the Vercel AI SDK (`ai` 7): the parts the bridge calls, with a loop shaped like
// the framework's (one model call per step through the language-model middleware, the step's
// tool calls started in call order, at once or toolCallConcurrency at a time, onStepFinish with
// the step's own response messages, the run's responseMessages, the step limit). The model's replies
// come from `fake.replies`, in order; `fake.params` records the params of each model call.
export const fake = { replies: [], params: [] };

export const stepCountIs = (count) => ({ count });
export const jsonSchema = (schema) => ({ jsonSchema: schema });
export const tool = (spec) => spec;
export const wrapLanguageModel = ({ model, middleware }) => ({ inner: model, middleware });

/** The next scripted reply: an Error is thrown, anything else returned. */
export function nextReply() {
  const r = fake.replies.shift();
  if (r === undefined) throw new Error('fake ai: no reply left');
  if (r instanceof Error) throw r;
  return r;
}

async function callModel(wrapped, type, params) {
  const { inner, middleware } = wrapped;
  const sent = await middleware.transformParams({ type, params, model: inner });
  fake.params.push(sent);
  if (type === 'generate') return middleware.wrapGenerate({ doGenerate: () => inner.doGenerate(sent), params: sent, model: inner });
  const res = await middleware.wrapStream({ doStream: () => inner.doStream(sent), params: sent, model: inner });
  const content = [];
  let finishReason = 'unknown';
  let error = null;
  for await (const part of res.stream) {
    if (part.type === 'text-delta') content.push({ type: 'text', text: part.delta });
    else if (part.type === 'tool-call') content.push(part);
    else if (part.type === 'finish') finishReason = part.finishReason;
    else if (part.type === 'error') error = part.error;
  }
  return { content, finishReason, error };
}

async function loop(options, type) {
  const history = [...options.messages];
  const responseMessages = [];
  const steps = [];
  for (let n = 0; n < options.stopWhen.count; n += 1) {
    const prompt = history.map((m) => (typeof m.content === 'string' && m.role !== 'system' ? { ...m, content: [{ type: 'text', text: m.content }] } : m));
    const result = await callModel(options.model, type, { prompt, abortSignal: options.abortSignal, providerOptions: options.providerOptions });
    if (result.error) {
      options.onError?.({ error: result.error });
      break;
    }
    // ai 7 runs no tool of a step whose finish reason is not stop or tool-calls (an interrupted
    // stream, a reply cut at the token limit) and ends the loop there.
    const reason = typeof result.finishReason === 'string' ? result.finishReason : result.finishReason?.unified;
    const runnable = ['stop', 'tool-calls'].includes(reason);
    const calls = runnable ? result.content.filter((c) => c.type === 'tool-call') : [];
    const assistant = { role: 'assistant', content: result.content };
    const runOne = (c) => options.tools[c.toolName].execute(JSON.parse(c.input), { toolCallId: c.toolCallId, abortSignal: options.abortSignal });
    let outputs;
    if (options.toolCallConcurrency === 1) {
      outputs = [];
      for (const c of calls) outputs.push(await runOne(c));
    } else {
      outputs = await Promise.all(calls.map(runOne));
    }
    const added = [assistant];
    // ai 7 turns each output into the model's form through the tool's toModelOutput, if it has one.
    const modelOutput = (c, i) => {
      const convert = options.tools[c.toolName].toModelOutput;
      return convert ? convert({ toolCallId: c.toolCallId, input: JSON.parse(c.input), output: outputs[i] }) : outputs[i];
    };
    if (calls.length) added.push({ role: 'tool', content: calls.map((c, i) => ({ type: 'tool-result', toolCallId: c.toolCallId, output: modelOutput(c, i) })) });
    responseMessages.push(...added);
    history.push(...added);
    const text = result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
    steps.push({ finishReason: result.finishReason, text });
    options.onStepFinish?.({ response: { messages: added }, finishReason: result.finishReason });
    if (!calls.length) break;
  }
  return { steps, responseMessages, text: steps.at(-1)?.text ?? '' };
}

export const generateText = (options) => loop(options, 'generate');

export function streamText(options) {
  const done = loop(options, 'stream');
  return {
    consumeStream: () => done.then(() => undefined),
    steps: done.then((r) => r.steps),
    responseMessages: done.then((r) => r.responseMessages),
    text: done.then((r) => r.text),
  };
}
