// A stand-in for the OpenAI Agents SDK (@openai/agents 0.20): Agent, tool, the Responses model,
// MemorySession and a Runner whose loop is shaped like the SDK's (the session's items before the
// input, one getResponse per turn, the turn's function calls run through each tool's invoke (the
// arguments parsed first: a call whose arguments do not parse gets an error result without its
// tool's invoke), a call to a missing tool handed to toolErrorFormatter, maxFunctionToolConcurrency, the Agent's
// toolUseBehavior called with the round's results, the run's items added to the session,
// MaxTurnsExceededError with the run's state). Streamed runs are not stood in for.
// The model's replies come from `fake.replies` (an Error is thrown); `fake.requests` records
// what the wrapped model was asked.
export const fake = { replies: [], requests: [], runners: [] };

export function setTracingDisabled() {}

export class MaxTurnsExceededError extends Error {
  constructor(message, state) {
    super(message);
    this.name = 'MaxTurnsExceededError';
    this.state = state;
  }
}

export class OpenAIResponsesModel {
  constructor(client, model) {
    this.client = client;
    this.model = model;
  }

  async getResponse(request) {
    fake.requests.push(request);
    const r = fake.replies.shift();
    if (r === undefined) throw new Error('fake agents: no reply left');
    if (r instanceof Error) throw r;
    return r;
  }
}

/** The SDK's in-memory Session: the conversation's items, in order. */
export class MemorySession {
  constructor() {
    this.items = [];
  }

  async getItems() {
    return [...this.items];
  }

  async addItems(items) {
    this.items.push(...items);
  }

  async clearSession() {
    this.items = [];
  }
}

export class Agent {
  constructor(options) {
    Object.assign(this, options);
  }
}

/** A function tool: invoke parses the JSON text of the arguments, then runs execute. */
export function tool(options) {
  return {
    type: 'function',
    name: options.name,
    options,
    invoke: async (runContext, input, details) => {
      let parsed;
      try {
        parsed = JSON.parse(input);
      } catch {
        return 'An error occurred while parsing tool arguments.';
      }
      return options.execute(parsed, runContext, details);
    },
  };
}

const parses = (text) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

export class Runner {
  constructor(options) {
    this.options = options;
    fake.runners.push(this);
  }

  async run(agent, input, { maxTurns, signal, session, stream }) {
    if (stream) throw new Error('fake agents: streamed runs are not stood in for');
    const added = typeof input === 'string' ? [{ role: 'user', content: input }] : [...input];
    const history = [...(session ? await session.getItems() : []), ...added];
    const newItems = [...added];
    for (let turn = 1; ; turn += 1) {
      if (turn > maxTurns) throw new MaxTurnsExceededError(`Max turns (${maxTurns}) exceeded`, { history });
      const res = await agent.model.getResponse({ input: history, tools: agent.tools, signal });
      history.push(...res.output);
      newItems.push(...res.output);
      const calls = res.output.filter((item) => item.type === 'function_call');
      if (!calls.length) {
        const message = res.output.find((item) => item.type === 'message');
        await session?.addItems(newItems);
        return { history, finalOutput: message?.content?.[0]?.text ?? '' };
      }
      const runOne = async (call) => {
        const t = agent.tools.find((x) => x.name === call.name);
        let output;
        if (!t) output = await this.options.toolErrorFormatter({ kind: 'tool_not_found', toolName: call.name, callId: call.callId });
        else if (!parses(call.arguments)) output = `Invalid input for function tool '${call.name}'.`; // the tool is not invoked
        else output = await t.invoke({}, call.arguments, { toolCall: call, signal });
        return { type: 'function_call_result', callId: call.callId, output };
      };
      let results;
      if (this.options.toolExecution?.maxFunctionToolConcurrency === 1) {
        results = [];
        for (const call of calls) results.push(await runOne(call));
      } else {
        results = await Promise.all(calls.map(runOne));
      }
      history.push(...results);
      newItems.push(...results);
      if (typeof agent.toolUseBehavior === 'function') {
        const outputs = results.map((r, i) => ({ type: 'function_output', tool: agent.tools.find((x) => x.name === calls[i].name), output: r.output, runItem: { rawItem: r } }));
        const outcome = await agent.toolUseBehavior({}, outputs);
        if (outcome.isFinalOutput) {
          await session?.addItems(newItems);
          return { history, finalOutput: outcome.finalOutput };
        }
      }
    }
  }
}
