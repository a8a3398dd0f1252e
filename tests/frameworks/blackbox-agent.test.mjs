// examples/blackbox-agent graded by `ock run --blackbox` (SPEC.md 9.7): the plain agent, with no
// OCK code, PASSes; its variant that drops a failing tool call's result FAILs on OCK-ORPHAN-001.
// The agent is copied into the frameworks' cache so that it imports the pinned openai and
// @modelcontextprotocol/sdk from there, as it would from its own node_modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from './harness.mjs';

const CACHE = resolve(process.env.OCK_FRAMEWORKS_CACHE ?? join(ROOT, 'build/frameworks'));
const AGENT = join(CACHE, 'blackbox-agent.mjs');

function grade(args) {
  const out = mkdtempSync(join(tmpdir(), 'ock-blackbox-agent-'));
  const run = spawnSync(join(ROOT, 'build/bin/ock'), [
    'run', '--blackbox', '--wires', 'openai', '--orchestrator', `node ${AGENT} ${args}`,
    '--fixtures', join(ROOT, 'tests/conformance/blackbox'), '--timeout', '20', '-o', out,
  ], { encoding: 'utf8' });
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  rmSync(out, { recursive: true, force: true });
  return { status: run.status, report, console: run.stdout + run.stderr };
}

const checks = (report) => report.scenarios.flatMap((s) => s.checks);

test('the plain agent passes black-box', () => {
  copyFileSync(join(ROOT, 'examples/blackbox-agent/agent.mjs'), AGENT);
  const { status, report, console } = grade('');
  assert.equal(report.tier, 'blackbox');
  assert.equal(report.verdict, 'PASS', console);
  assert.equal(status, 0);
  const orphan = checks(report).find((c) => c.id === 'orphan.result-for-every-call');
  assert.equal(orphan?.verdict, 'PASS');
  assert.equal(checks(report).find((c) => c.id === 'tool.input')?.verdict, 'PASS');
  const skipped = checks(report).find((c) => c.id === 'complete.once');
  assert.equal(skipped?.verdict, 'SKIP');
  assert.match(skipped.message, /^black-box: /);
});

test('the variant that drops a failing result is caught as an orphan', () => {
  copyFileSync(join(ROOT, 'examples/blackbox-agent/agent.mjs'), AGENT);
  const { status, report, console } = grade('--drop-failed-results');
  assert.equal(report.verdict, 'FAIL', console);
  assert.equal(status, 1);
  const orphan = checks(report).find((c) => c.id === 'orphan.result-for-every-call');
  assert.equal(orphan?.verdict, 'FAIL');
  assert.equal(orphan.requirement, 'OCK-ORPHAN-001');
  assert.match(console, /OCK-ORPHAN-001/);
});
