// Run by client.test.js: one session of two prompts; the first execute waits for its signal.
import { runSession } from '../src/client.js';

const status = await runSession(async ({ prompt, index, signal }) => {
  if (index === 0) {
    process.stdout.write('waiting\n');
    const alive = setInterval(() => {}, 1000); // stands for the work the signal would cancel
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    clearInterval(alive);
    process.stdout.write(`aborted ${signal.reason.message}\n`);
  } else {
    process.stdout.write(`second ${prompt} aborted=${signal.aborted}\n`);
  }
});
process.stdout.write(`status ${status}\n`);
process.exitCode = status;
