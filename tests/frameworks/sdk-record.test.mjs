// `ock record` with the official SDKs through it (SPEC.md 9.9, docs/regression.md): `openai`
// (chat.completions, and responses with a previous_response_id chain), `@anthropic-ai/sdk` and
// `@google/genai`, each an unmodified agent (tests/record/sdk_agent.mjs) that finds the
// recorder through its SDK's own base-URL variable. The standalone mock plays the provider
// behind the recorder (tests/record/session.json on that wire: a tool call, a 429 with
// Retry-After, a second prompt). The recorder is stopped with SIGINT; then the recording must be
// that session, hold no byte of the key the SDK sent, be served by `ock-mock-provider --fixture`
// to the same agent with every request valid, and grade under `ock run --blackbox`: PASS for
// the agent, FAIL on OCK-ORPHAN-001 for the same agent with a dropped tool result.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, alive } from './harness.mjs';

const BIN = join(ROOT, 'build/bin');
const AGENT = join(ROOT, 'tests/record/sdk_agent.mjs');
const PROMPTS = 'What is the weather in Paris?\nThanks!\n';
const WORK = mkdtempSync(join(tmpdir(), 'ock-sdk-record-'));
const started = [];

after(() => {
  for (const p of started) assert.equal(alive(p), false, `process ${p} is left`);
  rmSync(WORK, { recursive: true, force: true });
});

/** Starts a server that prints its URL as its first line; stop(signal) waits for its exit. */
async function startServer(bin, argv) {
  const child = spawn(bin, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child.pid);
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const url = await new Promise((resolveUrl, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolveUrl(out.slice(0, nl).trim());
    });
    child.on('exit', (code) => reject(new Error(`${bin} exited ${code} before printing its URL: ${err}`)));
  });
  return {
    url,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode, err };
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code, sig] = await exited;
      return { code, signal: sig, err };
    },
  };
}

/** Runs a command to its end with stdin; resolves with its exit code and output. */
async function run(bin, argv, { env = {}, input = '' } = {}) {
  const child = spawn(bin, argv, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  started.push(child.pid);
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  child.stdin.end(input);
  const [code] = await once(child, 'exit');
  return { code, out, err };
}

/** The variables each SDK reads, pointed at url, with key as every key. */
function sdkEnv(url, key) {
  return { OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: key, ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: key,
    GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: key, GOOGLE_API_KEY: key };
}

/** The session of tests/record/session.json with its provider on wire. */
function sessionOn(wire, dir) {
  const fx = JSON.parse(readFileSync(join(ROOT, 'tests/record/session.json'), 'utf8'));
  fx.session.providers[0].api = wire;
  const path = join(dir, 'session.json');
  writeFileSync(path, JSON.stringify(fx));
  return path;
}

const cases = [
  { sdk: 'openai-chat', wire: 'openai', flags: [], model: 'gpt-prod' },
  { sdk: 'openai-responses', wire: 'responses', flags: [], model: 'gpt-prod' },
  { sdk: 'openai-responses', wire: 'responses', flags: ['--stream'], model: 'gpt-prod' },
  { sdk: 'anthropic', wire: 'anthropic', flags: ['--stream'], model: 'claude-prod' },
  { sdk: 'genai', wire: 'gemini', flags: [], model: 'gemini-prod' },
  { sdk: 'genai', wire: 'gemini', flags: ['--stream'], model: 'gemini-prod' },
];

for (const c of cases) {
  const name = `${c.sdk}${c.flags.join('')}`;
  test(`${name}: recorded through ock record, no key on disk, replayed by the mock and by ock run`, async () => {
    const dir = mkdtempSync(join(WORK, `${name}-`));
    const key = `sk-rec-${name}-Z7y6X5w4`;
    const agentArgv = [AGENT, '--sdk', c.sdk, ...c.flags];

    // 1. Record: the mock plays the provider, the SDK talks to the recorder.
    const mock = await startServer(join(BIN, 'ock-mock-provider'), ['--fixture', sessionOn(c.wire, dir)]);
    const rec = await startServer(join(BIN, 'ock'), ['record', '--upstream', mock.url, '-o', join(dir, 'rec')]);
    const live = await run(process.execPath, agentArgv, { env: sdkEnv(rec.url, key), input: PROMPTS });
    const stopped = await rec.stop('SIGINT');
    await mock.stop();
    assert.equal(live.code, 0, `the agent through the recorder: ${live.err}`);
    assert.match(live.out, /It is 15 degrees in Paris\.\nYou're welcome\./);
    assert.equal(stopped.code, 0, `ock record exits 0 on SIGINT: ${stopped.err}`);

    // 2. The recording is the session: its wire, prompts, the call, the 429, the result.
    const fx = JSON.parse(readFileSync(join(dir, 'rec/fixture.json'), 'utf8'));
    assert.deepEqual(fx.session.providers.map((p) => [p.api, p.model]), [[c.wire, c.model]]);
    assert.deepEqual(fx.session.prompts, ['What is the weather in Paris?', 'Thanks!']);
    assert.deepEqual(fx.session.tools.map((t) => t.name), ['get_weather']);
    assert.equal(fx.session.config.streaming === true, c.flags.includes('--stream'));
    const turns = fx.script.primary;
    assert.deepEqual(turns[0].tool_calls, [{ name: 'get_weather', arguments: { city: 'Paris' } }]);
    assert.deepEqual(turns[1].fault, { status: 429, retry_after: 1, message: turns[1].fault.message });
    assert.deepEqual(turns.slice(2).map((t) => t.text), ['It is 15 degrees in Paris.', "You're welcome."]);
    assert.equal(fx.tools.get_weather.calls[0].result.output, '15 degrees in Paris');
    if (c.wire === 'responses') {
      const traffic = readFileSync(join(dir, 'rec/traffic.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.ok(traffic.some((x) => x.request?.previous_response_id), 'the SDK chained its requests');
    }

    // 3. No byte of the key in any file the recorder wrote.
    const files = readdirSync(join(dir, 'rec'));
    assert.ok(files.includes('fixture.json') && files.includes('traffic.jsonl'));
    for (const f of files) {
      const text = readFileSync(join(dir, 'rec', f), 'utf8');
      assert.ok(!text.includes(key), `${f} holds the key`);
      assert.ok(!text.includes('Z7y6X5w4'), `${f} holds part of the key`);
    }

    // 4. The mock serves the recording: the same agent gets the same answers, every request valid.
    const replay = await startServer(join(BIN, 'ock-mock-provider'), ['--fixture', join(dir, 'rec/fixture.json')]);
    const again = await run(process.execPath, agentArgv, { env: sdkEnv(replay.url, 'ock-dummy-key'), input: PROMPTS });
    const journal = await (await fetch(`${replay.url}/ock/v1/journal`)).json();
    await replay.stop();
    assert.equal(again.code, 0, `the agent against the replay: ${again.err}`);
    assert.equal(again.out, live.out);
    assert.equal(journal.filter((e) => e.kind === 'llm_request').length, 4);
    assert.deepEqual(journal.filter((e) => e.kind === 'finding'), []);

    // 5. ock run grades the agent against the recording: PASS, and FAIL on OCK-ORPHAN-001 when
    //    the agent drops a tool result.
    const caps = `core,resilience${c.flags.includes('--stream') ? ',streaming' : ''}`;
    const grade = (extra, out) => run(join(BIN, 'ock'), ['run', '--blackbox', '--wires', c.wire, '--capabilities', caps,
      '--fixtures', join(dir, 'rec'), '--orchestrator', [process.execPath, ...agentArgv, ...extra].join(' '), '-o', join(dir, out)]);
    const good = await grade([], 'good');
    assert.equal(good.code, 0, `ock run of the agent: ${good.out.slice(-1500)}`);
    const bad = await grade(['--drop-tool-results'], 'bad');
    assert.equal(bad.code, 1, `ock run of the agent with a dropped result: ${bad.out.slice(-1500)}`);
    const report = JSON.parse(readFileSync(join(dir, 'bad/report.json'), 'utf8'));
    const orphan = report.scenarios[0].checks.find((k) => k.id === 'orphan.result-for-every-call');
    assert.equal(orphan.verdict, 'FAIL');
    assert.match(orphan.message, /OCK-ORPHAN-001/);
  });
}
