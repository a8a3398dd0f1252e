// A stand-in for the official `openai` client: it only keeps its options.
export default class OpenAI {
  constructor(options) {
    this.options = options;
  }
}
