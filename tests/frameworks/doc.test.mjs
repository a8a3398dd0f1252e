// scripts/frameworks-doc.mjs, the writer of docs/frameworks.md: the labels it reads from a
// baseline's group comments, the versions it reads from the cache, and its --check, on reports
// made here (the real ones exist only after the bridges ran, later in make test-frameworks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './harness.mjs';
import { frameworkVersions, parseBaseline } from '../../scripts/frameworks-doc.mjs';

test('each group comment gives its entries their label', () => {
  const entries = parseBaseline(
    [
      '# the header: prose, no group',
      '',
      '# framework: a cut stream is taken as a reply',
      'stream-cut:OCK-ERROR-001',
      '# policy: no wrap-up turn',
      'iter-max-iterations:OCK-ITER-002',
      '- iter-wrapup-error   # an inline comment',
      '# bridge: fail_fast not applied',
      'error-fail-fast-tool:orphan.result-for-every-call',
      '# bridge defect: retryable false',
      'stream-malformed-chunk:OCK-ERROR-001',
    ].join('\n'),
    'b.txt',
  );
  assert.deepEqual(
    entries.map((e) => [e.scenario, e.part, e.label, e.text]),
    [
      ['stream-cut', 'OCK-ERROR-001', 'framework defect', 'a cut stream is taken as a reply'],
      ['iter-max-iterations', 'OCK-ITER-002', "deviation from the contract's policy", 'no wrap-up turn'],
      ['iter-wrapup-error', null, "deviation from the contract's policy", 'no wrap-up turn'],
      ['error-fail-fast-tool', 'orphan.result-for-every-call', 'missing feature', 'fail_fast not applied'],
      ['stream-malformed-chunk', 'OCK-ERROR-001', 'bridge defect', 'retryable false'],
    ],
  );
});

test('an entry outside a labelled group is an error naming its line', () => {
  assert.throws(() => parseBaseline('# framework: x\na:OCK-ITER-001\n\nb:OCK-ITER-001\n', 'b.txt'), /^Error: b\.txt:4: entry "b:OCK-ITER-001"/);
  assert.throws(() => parseBaseline('# framework: x\n# prose: not a label\nb\n', 'b.txt'), /b\.txt:3:/);
  assert.throws(() => parseBaseline('a:OCK-ITER-001\n', 'b.txt'), /b\.txt:1:/);
});

test('versions come from the cache and must match what the manifest states', () => {
  const cache = mkdtempSync(join(tmpdir(), 'ock-fwdoc-cache-'));
  try {
    for (const [name, version] of [['ai', '5.0.277'], ['@ai-sdk/openai', '2.0.131']]) {
      mkdirSync(join(cache, 'node_modules', name), { recursive: true });
      writeFileSync(join(cache, 'node_modules', name, 'package.json'), JSON.stringify({ name, version }));
    }
    assert.deepEqual(frameworkVersions('ai 5 (Vercel AI SDK) with @ai-sdk/openai 2 and zod 4', cache, 'm.json'), [
      'ai 5.0.277',
      '@ai-sdk/openai 2.0.131',
    ]);
    assert.throws(() => frameworkVersions('ai 6 with @ai-sdk/openai 2', cache, 'm.json'), /m\.json: framework says ai 6, .* has 5\.0\.277/);
    assert.throws(() => frameworkVersions('ai 5.1', cache, 'm.json'), /says ai 5\.1/);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

/** A black-box report whose checks fail exactly where the committed baseline says. */
function fakeReport() {
  const entries = parseBaseline(readFileSync(join(ROOT, 'tests/frameworks/expected/vercel-ai-blackbox.txt'), 'utf8'), 'x');
  const scenarios = new Map();
  const check = (requirement, extra) => ({ id: 'x.y', requirement, level: 'MUST', verdict: 'PASS', message: 'waited 2031 ms', ...extra });
  for (const e of entries) {
    if (!scenarios.has(e.scenario)) scenarios.set(e.scenario, { id: e.scenario, verdict: 'PASS', checks: [check('OCK-ORPHAN-001')] });
    scenarios.get(e.scenario).checks.push(check(e.part, { expected_failure: true }));
  }
  scenarios.set('text-answer', { id: 'text-answer', verdict: 'PASS', checks: [check('OCK-PROC-002'), check('OCK-ORPHAN-005', { level: 'SHOULD' })] });
  return {
    tier: 'blackbox',
    blackbox_coverage: { graded: ['OCK-ORPHAN-001', 'OCK-ITER-001'], not_graded: [] },
    orchestrator: { command: `node ${ROOT}/build/frameworks/examples/vercel-ai-mcp/agent.mjs`, capabilities: ['core'], wires: ['openai'] },
    scenarios: [...scenarios.values()],
    requirements: [
      { id: 'OCK-ERROR-002', level: 'MUST' },
      { id: 'OCK-ITER-001', level: 'MUST' },
      { id: 'OCK-ORPHAN-001', level: 'MUST' },
      { id: 'OCK-ORPHAN-005', level: 'SHOULD' },
      { id: 'OCK-ORPHAN-008', level: 'MUST' },
      { id: 'OCK-PROC-002', level: 'MUST' },
    ],
  };
}

function runDoc(dir, ...args) {
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'scripts/frameworks-doc.mjs'), '--reports', join(dir, 'reports'), '--cache', join(dir, 'cache'), '--out', join(dir, 'doc.md'), ...args],
    { encoding: 'utf8' },
  );
  return { status: r.status, out: r.stdout + r.stderr };
}

test('the doc lists every finding with its label and command, and --check finds a difference', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ock-fwdoc-'));
  try {
    mkdirSync(join(dir, 'reports/vercel-ai-blackbox'), { recursive: true });
    mkdirSync(join(dir, 'cache'));
    writeFileSync(join(dir, 'reports/vercel-ai-blackbox/report.json'), JSON.stringify(fakeReport()));
    const bb = ['--blackbox', 'vercel-ai-blackbox=examples/vercel-ai-mcp'];

    const missing = runDoc(dir);
    assert.equal(missing.status, 2, missing.out);
    assert.match(missing.out, /no --blackbox vercel-ai-blackbox=EXAMPLE_DIR/);

    const written = runDoc(dir, ...bb);
    assert.equal(written.status, 0, written.out);
    const doc = readFileSync(join(dir, 'doc.md'), 'utf8');
    assert.doesNotMatch(doc, new RegExp(ROOT), 'no absolute path of this checkout');
    assert.doesNotMatch(doc, /\d ?ms\b/, 'no measured time');
    assert.match(doc, /\| \[vercel-ai-blackbox\]\(#vercel-ai-blackbox\) \| black-box \| not found \| core \| openai \| 2\/5 \| 1\/1 \|/);
    assert.match(
      doc,
      /\| tool-arguments-not-object \| OCK-ORPHAN-008 \| MUST \| framework defect \| arguments that are not an object .* \| `build\/bin\/ock run --blackbox --orchestrator "node build\/frameworks\/examples\/vercel-ai-mcp\/agent.mjs" --manifest examples\/vercel-ai-mcp\/manifest.json --case tool-arguments-not-object` \|/,
    );
    assert.match(doc, /\| iter-wrapup-tool-calls \| OCK-ITER-001 \| MUST \| deviation from the contract's policy \|/);
    const rows = doc.split('\n').filter((l) => /^\| [a-z-]+ \| OCK-/.test(l));
    assert.equal(rows.length, 6);

    assert.equal(runDoc(dir, '--check', ...bb).status, 0);
    writeFileSync(join(dir, 'doc.md'), doc.replace('| framework defect |', '| missing feature |'));
    const stale = runDoc(dir, '--check', ...bb);
    assert.equal(stale.status, 1, stale.out);
    assert.match(stale.out, /is not what this run makes: first difference at line \d+/);
    assert.match(stale.out, /run make frameworks-doc/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
