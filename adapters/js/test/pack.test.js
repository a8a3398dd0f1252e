// The package as a user takes it: `npm pack` holds the runtime files, the declarations, the
// manifests, README and LICENSE, and nothing else (no tests, no build configuration); the packed
// tarball installs into a scratch directory with no registry (--offline), and each export of
// package.json imports from there (the bridges with their frameworks replaced by the test's
// stand-ins, as in the bridges' unit tests). Needs npm; skipped without it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const hasNpm = spawnSync('npm', ['--version'], { stdio: 'ignore' }).status === 0;
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const shipped = () => {
  const files = ['LICENSE', 'README.md', 'package.json'];
  for (const dir of ['src', 'bin', 'manifests', 'types'])
    for (const f of readdirSync(join(root, dir))) files.push(`${dir}/${f}`);
  return files.sort();
};

const targets = (exp) => (typeof exp === 'string' ? [exp] : Object.values(exp).flatMap(targets));

// One `npm pack` for both tests: its report lists the tarball's files.
let scratch = null;
let packed = null;
before(() => {
  if (!hasNpm) return;
  scratch = mkdtempSync(join(tmpdir(), 'ock-adapter-pack-'));
  [packed] = JSON.parse(npm(['pack', '--json', '--loglevel=error', '--pack-destination', scratch], root));
});
after(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('npm pack holds exactly the files a user needs', { skip: !hasNpm && 'npm not found' }, () => {
  const files = packed.files.map((f) => f.path).sort();
  assert.deepEqual(files, shipped());
  for (const [key, exp] of Object.entries(pkg.exports))
    for (const t of targets(exp))
      if (!t.includes('*')) assert.ok(files.includes(t.replace(/^\.\//, '')), `${key} -> ${t} is packed`);
  for (const t of Object.values(pkg.bin)) assert.ok(files.includes(t.replace(/^\.\//, '')), `${t} is packed`);
});

test('the packed tarball installs offline and each export imports', { skip: !hasNpm && 'npm not found' }, () => {
  const app = join(scratch, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  npm(['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', join(scratch, packed.filename)], app);
  const installed = join(app, 'node_modules', 'ock-adapter');
  for (const bin of Object.keys(pkg.bin)) assert.ok(existsSync(join(app, 'node_modules', '.bin', bin)), `bin ${bin} linked`);
  for (const f of ['tsconfig.json', 'package-lock.json', 'test']) assert.ok(!existsSync(join(installed, f)), `${f} not installed`);
  const register = pathToFileURL(fileURLToPath(new URL('./fakes/register.js', import.meta.url))).href;
  const script = `
    const names = {};
    for (const spec of ${JSON.stringify(Object.keys(pkg.exports).filter((k) => !k.includes('*') && k !== './package.json'))})
      names[spec] = Object.keys(await import(spec === '.' ? 'ock-adapter' : 'ock-adapter' + spec.slice(1))).sort();
    const { default: manifest } = await import('ock-adapter/manifests/vercel-ai.json', { with: { type: 'json' } });
    names.manifest = typeof manifest;
    console.log(JSON.stringify(names));`;
  const out = execFileSync(process.execPath, ['--import', register, '--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
  const names = JSON.parse(out);
  assert.ok(names['.'].includes('runSession') && names['.'].includes('OckClient'));
  assert.ok(names['./vercel-ai'].includes('executeVercelAi'));
  assert.ok(names['./openai-agents'].includes('executeOpenAIAgents'));
  assert.ok(names['./langgraph'].includes('executeLangGraph'));
  assert.equal(names.manifest, 'object');
});
