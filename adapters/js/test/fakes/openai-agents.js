// A stand-in for the OpenAI Agents SDK (@openai/agents 0.14): Agent, tool, the Chat Completions
// model and a Runner whose loop is shaped like the SDK's (one getResponse per turn, the turn's
// function calls run through each tool's invoke, a call to a missing tool handed to
// toolErrorFormatter, maxFunctionToolConcurrency, MaxTurnsExceededError with the run's state).
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

export class OpenAIChatCompletionsModel {
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

export class Runner {
  constructor(options) {
    this.options = options;
    fake.runners.push(this);
  }

  async run(agent, input, { maxTurns, signal }) {
    const history = typeof input === 'string' ? [{ role: 'user', content: input }] : [...input];
    for (let turn = 1; ; turn += 1) {
      if (turn > maxTurns) throw new MaxTurnsExceededError(`Max turns (${maxTurns}) exceeded`, { history });
      const res = await agent.model.getResponse({ input: history, tools: agent.tools, signal });
      history.push(...res.output);
      const calls = res.output.filter((item) => item.type === 'function_call');
      if (!calls.length) {
        const message = res.output.find((item) => item.type === 'message');
        return { history, finalOutput: message?.content?.[0]?.text ?? '' };
      }
      const runOne = async (call) => {
        const t = agent.tools.find((x) => x.name === call.name);
        const output = t
          ? await t.invoke({}, call.arguments, { toolCall: call, signal })
          : await this.options.toolErrorFormatter({ kind: 'tool_not_found', toolName: call.name, callId: call.callId });
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
    }
  }
}
