// A stand-in for LangGraph JS and the LangChain parts the bridge uses (@langchain/langgraph 1,
// @langchain/openai 1, @langchain/core 1): messages, tool() with its schema check, ChatOpenAI
// delegating to its `completions` model, and createReactAgent's loop (agent and tools supersteps,
// the ToolNode starting the calls of a message at once, an unknown tool answered without any
// tool, a MemorySaver thread, GraphRecursionError past recursionLimit). The model's replies come
// from `fake.replies`: `{content, tool_calls: [{id, name, args}], finish_reason}` or an Error.
export const fake = { replies: [], sent: [] };

class BaseMessage {
  constructor(content, fields = {}) {
    this.content = content;
    Object.assign(this, fields);
  }
}
export class HumanMessage extends BaseMessage {}
export class SystemMessage extends BaseMessage {}
export class AIMessage extends BaseMessage {}
export class ToolMessage extends BaseMessage {}
export const isAIMessage = (m) => m instanceof AIMessage;

export class ToolInputParsingException extends Error {}
export class GraphRecursionError extends Error {}

export class MemorySaver {
  constructor() {
    this.threads = new Map();
  }
}

/** A LangChain tool: invoke checks the call's args against the schema's required keys. */
export function tool(fn, fields) {
  return {
    name: fields.name,
    fields,
    async invoke(call, config) {
      const required = fields.schema?.required ?? [];
      const args = call.args;
      if (args === null || typeof args !== 'object' || required.some((k) => !(k in args)))
        throw new ToolInputParsingException('Received tool input did not match expected schema');
      return fn(args, { ...config, toolCall: call });
    },
  };
}

export class ChatOpenAICompletions {
  constructor(fields) {
    this.fields = fields;
  }

  async _generate(messages) {
    fake.sent.push(messages);
    const r = fake.replies.shift();
    if (r === undefined) throw new Error('fake langgraph: no reply left');
    if (r instanceof Error) throw r;
    const wire = (r.tool_calls ?? []).map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.raw ?? JSON.stringify(c.args) } }));
    const message = new AIMessage(r.content ?? '', {
      tool_calls: (r.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.args })),
      additional_kwargs: wire.length ? { tool_calls: wire } : {},
      usage_metadata: r.usage,
    });
    return { generations: [{ message, generationInfo: { finish_reason: r.finish_reason ?? 'stop' } }] };
  }
}

export class ChatOpenAI {
  constructor(fields) {
    this.fields = fields;
    this.completions = fields.completions;
  }
}

export function createReactAgent({ llm, tools, checkpointSaver }) {
  return {
    async invoke({ messages }, config) {
      const id = config.configurable.thread_id;
      const thread = [...(checkpointSaver.threads.get(id) ?? []), ...messages];
      checkpointSaver.threads.set(id, [...thread]);
      for (let superstep = 1; ; superstep += 1) {
        if (superstep > config.recursionLimit) throw new GraphRecursionError(`Recursion limit of ${config.recursionLimit} reached`);
        const last = thread.at(-1);
        if (superstep % 2 === 1) {
          const { generations } = await llm.completions._generate([...thread], { signal: config.signal });
          thread.push(generations[0].message);
        } else if (last.tool_calls?.length) {
          const results = await Promise.all(last.tool_calls.map(async (call) => {
            const t = tools.find((x) => x.name === call.name);
            if (!t) return new ToolMessage(`Error: Tool "${call.name}" not found.`, { tool_call_id: call.id });
            try {
              return new ToolMessage(await t.invoke({ ...call, type: 'tool_call' }, { signal: config.signal }), { tool_call_id: call.id });
            } catch (e) {
              return new ToolMessage(`Error: ${e.message}`, { tool_call_id: call.id });
            }
          }));
          thread.push(...results);
        }
        checkpointSaver.threads.set(id, [...thread]);
        if (superstep % 2 === 1 && !thread.at(-1).tool_calls?.length) return { messages: thread };
      }
    },
  };
}
