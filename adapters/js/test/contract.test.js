// contract.schema.json (scripts/contract_schema.py, generated afresh for the test) against real
// documents: the session documents the mock serves (each parsed by this client too), the events
// and HookResults of the reference orchestrator's journals, the events each bridge sends (under
// the stand-ins of its framework), and the package's manifests; and broken copies refused. Needs
// python3 for the generator; the mock and the reference come from the build ($OCK_BUILD, else
// build/ of the repository) and their tests are skipped when it is not built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import './fakes/register.js';
import { parseSession } from '../src/client.js';
import { contractErrors } from './schema-check.js';
import { drive, session } from './harness.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const build = resolve(root, process.env.OCK_BUILD ?? 'build');
const gen = spawnSync('python3', [join(root, 'scripts/contract_schema.py')], { encoding: 'utf8' });
const contract = gen.status === 0 ? JSON.parse(gen.stdout) : null;
const noSchema = contract ? false : `the generator did not run (python3 scripts/contract_schema.py: ${gen.error?.message ?? gen.stderr})`;
const bin = (name) => join(build, 'bin', name);
const notBuilt = (...names) => noSchema || (names.every((n) => existsSync(bin(n))) ? false : `${build}/bin is not built (make all)`);
const errors = (def, value) => contractErrors(contract, def, value);

/** The session document the mock serves for a fixture. */
async function servedSession(fixture) {
  const mock = spawn(bin('ock-mock-provider'), ['--fixture', join(root, 'fixtures', `${fixture}.json`)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [url] = await createInterface({ input: mock.stdout })[Symbol.asyncIterator]().next().then((r) => [r.value]);
    const res = await fetch(`${url.trim()}/ock/v1/session`);
    return await res.json();
  } finally {
    const exited = new Promise((done) => mock.once('exit', done));
    mock.kill('SIGTERM');
    await exited;
  }
}

for (const fixture of ['tool-single-call', 'anthropic-stream-text', 'responses-deny-tool-pre', 'gemini-deny-tool-pre', 'fallback-cross-wire']) {
  test(`the session the mock serves for ${fixture} is valid`, { skip: notBuilt('ock-mock-provider') }, async () => {
    const doc = await servedSession(fixture);
    assert.equal(doc.scenario, fixture);
    assert.deepEqual(errors('session', doc), []);
    if (doc.providers.every((p) => p.api === 'openai' || p.api === 'anthropic')) assert.doesNotThrow(() => parseSession(doc));
  });
}

test('the events and replies in the reference orchestrator journals are valid', { skip: notBuilt('ock', 'ock-orchestrator') }, () => {
  const out = mkdtempSync(join(tmpdir(), 'ock-contract-'));
  try {
    const cases = ['tool-single-call', 'hook-*', 'stream-text', 'cancel-during-tool', 'tool-selecting-modify', 'tool-unknown', 'iter-*'].flatMap((c) => ['--case', c]);
    const run = spawnSync(bin('ock'), ['run', '--orchestrator', bin('ock-orchestrator'), '--capabilities', 'core,streaming,parallel,scheduling,lifecycle,resilience,cancellation',
      '--fixtures', join(root, 'fixtures'), ...cases, '-o', join(out, 'run'), '--journals', '--format', 'jsonl', '--jobs', '2'], { encoding: 'utf8', cwd: root, timeout: 600000 });
    assert.equal(run.status, 0, run.stdout.slice(-2000) + run.stderr.slice(-2000));
    const seen = new Set();
    const dir = join(out, 'run', 'journals');
    for (const file of readdirSync(dir)) {
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean)) {
        const entry = JSON.parse(line);
        if (entry.kind !== 'event') continue;
        seen.add(entry.event);
        assert.deepEqual(errors('event', { event: entry.event, data: entry.data }), [], `${file} seq ${entry.seq}`);
        assert.deepEqual(errors('hook_result', entry.reply), [], `${file} seq ${entry.seq}`);
      }
    }
    assert.ok(seen.size >= 14, [...seen].join(' '));
    assert.deepEqual(errors('report', JSON.parse(readFileSync(join(out, 'run', 'report.json'), 'utf8'))), []);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('the events each bridge sends are valid', { skip: noSchema }, async () => {
  const bridges = [
    ['vercel-ai', 'executeVercelAi', (f) => { f.replies = [
      { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'get_weather', input: '{"city":"Paris"}' }], finishReason: 'tool-calls', usage: {}, response: { body: { choices: [{ finish_reason: 'tool_calls' }] } } },
      Object.assign(new Error('Too Many Requests'), { statusCode: 429 })]; }],
    // The Agents SDK bridge speaks the Responses wire: its replies are raw Responses bodies.
    ['openai-agents', 'executeOpenAIAgents', (f) => { f.replies = [
      { providerData: { status: 'completed', output: [{ type: 'function_call', call_id: 'c1', name: 'nope', arguments: '{}' }], usage: { input_tokens: 9, output_tokens: 2 } },
        output: [{ type: 'function_call', callId: 'c1', name: 'nope', arguments: '{}' }] },
      { providerData: { status: 'completed', output: [{ type: 'message', content: [{ type: 'output_text', text: 'done' }] }], usage: { input_tokens: 12, output_tokens: 1 } },
        output: [{ type: 'message', content: [{ type: 'output_text', text: 'done' }] }] }]; }, 'responses'],
    ['langgraph', 'executeLangGraph', (f) => { f.replies = [
      { content: '', finish_reason: 'tool_calls', tool_calls: [{ id: 'c1', name: 'get_weather', args: { town: 'x' } }] }, { content: 'ok', finish_reason: 'stop' }]; }],
  ];
  for (const [name, fn, script, api = 'openai'] of bridges) {
    const { fake } = await import(`./fakes/${name === 'vercel-ai' ? 'ai' : name}.js`);
    const mod = await import(`../src/${name}.js`);
    script(fake);
    const reply = (event) => (event === 'tool:pre' && name === 'vercel-ai' ? { action: 'deny', reason: 'no' } : undefined);
    const providers = [{ name: 'primary', api, base_url: 'http://127.0.0.1:9/p/primary/v1', model: 'gpt-ock', priority: 1 }];
    const { events } = await drive(mod[fn], mod.newState, { doc: session({ providers }), reply });
    assert.ok(events.length >= 6, name);
    for (const e of events) assert.deepEqual(errors('event', e), [], `${name}: ${JSON.stringify(e)}`);
  }
});

test('the package manifests are valid', { skip: noSchema }, () => {
  const dir = fileURLToPath(new URL('../manifests', import.meta.url));
  for (const file of readdirSync(dir)) assert.deepEqual(errors('manifest', JSON.parse(readFileSync(join(dir, file), 'utf8'))), [], file);
});

test('broken documents are refused', { skip: noSchema }, () => {
  const doc = session();
  assert.deepEqual(errors('session', doc), []);
  assert.notDeepEqual(errors('session', { ...doc, protocol: 'ock/2' }), []);
  assert.notDeepEqual(errors('session', { ...doc, providers: [{ ...doc.providers[0], priority: undefined }] }), []);
  assert.notDeepEqual(errors('event', { event: 'tool:pre', data: { tool_call_id: 'c', tool_name: 't', tool_input: {} } }), [], 'no parallel_group_id');
  assert.notDeepEqual(errors('event', { event: 'provider:error', data: { provider: 'p', iteration: 1, attempt: 1, error: { type: 'x', message: '' }, retryable: true, status_code: null } }), []);
  assert.notDeepEqual(errors('event', { event: 'orchestrator:complete', data: { orchestrator: 'o', turn_count: -1, status: 'success' } }), []);
  assert.notDeepEqual(errors('hook_result', { action: 'deny', ephemeral: 'yes' }), []);
  assert.notDeepEqual(errors('manifest', { capabilities: ['core'] }), []);
  assert.deepEqual(errors('event', { event: 'my:custom', data: { x: 1 } }), [], 'a custom event carries any object');
});
