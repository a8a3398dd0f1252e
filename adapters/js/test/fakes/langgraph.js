// A stand-in for LangGraph JS and the LangChain parts the bridge uses (@langchain/langgraph 1,
// @langchain/openai 1, @langchain/core 1): messages, tool() with its schema check, ChatOpenAI
// delegating to its `completions` model (a call whose `raw` arguments do not parse, or are empty,
// goes to the message's invalid_tool_calls), and createReactAgent's loop (pre_model_hook, agent,
// post_model_hook and tools supersteps, the hooks' messages added to the state, the router after
// post_model_hook sending the calls without a ToolMessage to the tools and a message ending in
// a ToolMessage back to the model, the ToolNode starting the calls of a message at once, an
// unknown tool answered without any tool by an error ToolMessage, a MemorySaver thread,
// GraphRecursionError past recursionLimit, getState and updateState). The model's replies come from `fake.replies`:
// `{content, tool_calls: [{id, name, args, raw}], finish_reason}` or an Error.
export const fake = { replies: [], sent: [], messages: {} };

class BaseMessage {
  // As LangChain's: new X(content, fields) or new X({ content, ...fields }).
  constructor(content, fields = {}) {
    if (content !== null && typeof content === 'object' && !Array.isArray(content)) Object.assign(this, content);
    else this.content = content;
    Object.assign(this, fields);
  }
}
export class HumanMessage extends BaseMessage {}
export class SystemMessage extends BaseMessage {}
export class AIMessage extends BaseMessage {}
export class ToolMessage extends BaseMessage {
  static isInstance(m) {
    return m instanceof ToolMessage;
  }
}
export class RemoveMessage extends BaseMessage {}
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
    const parses = (c) => {
      if (c.raw === undefined) return true;
      try {
        JSON.parse(c.raw);
        return true;
      } catch {
        return false;
      }
    };
    const message = new AIMessage(r.content ?? '', {
      tool_calls: (r.tool_calls ?? []).filter(parses).map((c) => ({ id: c.id, name: c.name, args: c.args })),
      invalid_tool_calls: (r.tool_calls ?? []).filter((c) => !parses(c)).map((c) => ({ id: c.id, name: c.name, args: c.raw, error: 'Malformed args.', type: 'invalid_tool_call' })),
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

export function createReactAgent({ llm, tools, checkpointSaver, preModelHook, postModelHook }) {
  const toolStep = (call, config) => {
    const t = tools.find((x) => x.name === call.name);
    const error = (text) => new ToolMessage(text, { tool_call_id: call.id, name: call.name, status: 'error' });
    if (!t) return error(`Error: Tool "${call.name}" not found.`);
    return t.invoke({ ...call, type: 'tool_call' }, { signal: config.signal }).then(
      (out) => new ToolMessage(out, { tool_call_id: call.id, name: call.name, status: 'success' }),
      (e) => error(`Error: ${e.message}`),
    );
  };
  return {
    // The thread's last checkpoint; updateState applies the messages reducer (a RemoveMessage
    // drops the message of its id, any other message is appended).
    async getState(config) {
      const messages = checkpointSaver.threads.get(config.configurable.thread_id);
      return { values: { messages: [...(messages ?? [])] }, config: messages ? config : undefined };
    },
    async updateState(config, { messages }) {
      const id = config.configurable.thread_id;
      let thread = [...(checkpointSaver.threads.get(id) ?? [])];
      for (const m of messages) thread = m instanceof RemoveMessage ? thread.filter((x) => x.id !== m.id) : [...thread, m];
      checkpointSaver.threads.set(id, thread);
    },
    async invoke({ messages }, config) {
      const id = config.configurable.thread_id;
      const thread = [...(checkpointSaver.threads.get(id) ?? []), ...messages];
      checkpointSaver.threads.set(id, [...thread]);
      // START -> pre_model_hook -> agent -> post_model_hook -> tools (the calls no ToolMessage
      // answers), or pre_model_hook (the state ends in a ToolMessage), or END.
      const answered = () => new Set(thread.filter((m) => m instanceof ToolMessage).map((m) => m.tool_call_id));
      const pending = () => {
        const ai = thread.findLast((m) => m instanceof AIMessage);
        const done = answered();
        return (ai?.tool_calls ?? []).filter((c) => !done.has(c.id));
      };
      let node = 'pre_model_hook';
      for (let superstep = 1; node !== 'end'; superstep += 1) {
        if (superstep > config.recursionLimit) throw new GraphRecursionError(`Recursion limit of ${config.recursionLimit} reached`);
        if (node === 'pre_model_hook' || node === 'post_model_hook') {
          const hook = node === 'pre_model_hook' ? preModelHook : postModelHook;
          const update = hook ? await hook({ messages: [...thread] }, { signal: config.signal }) : {};
          thread.push(...(update.messages ?? []));
        } else if (node === 'agent') {
          const { generations } = await llm.completions._generate([...thread], { signal: config.signal });
          thread.push(generations[0].message);
        } else {
          thread.push(...(await Promise.all(pending().map((call) => toolStep(call, config)))));
        }
        checkpointSaver.threads.set(id, [...thread]);
        if (node === 'pre_model_hook') node = 'agent';
        else if (node === 'agent') node = 'post_model_hook';
        else if (node === 'tools') node = 'pre_model_hook';
        else if (pending().length) node = 'tools';
        else node = thread.at(-1) instanceof ToolMessage ? 'pre_model_hook' : 'end';
      }
      return { messages: thread };
    },
  };
}

Object.assign(fake.messages, { HumanMessage, AIMessage, ToolMessage, RemoveMessage });
