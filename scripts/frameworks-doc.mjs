#!/usr/bin/env node
// Writes docs/frameworks.md, the frameworks' conformance table, from the reports a run of
// `make test-frameworks` left in build/frameworks/reports/<name>/report.json, the manifests, the
// expected-failures baselines' labelled groups and the versions installed in build/frameworks.
// `make frameworks-doc` writes it; `--check` (run by make test-frameworks) fails when the
// committed file is not what the run makes. Nothing volatile goes into the doc (no time, no
// duration, no message with a measured delay), so the same behaviour writes the same bytes.
//
//   node scripts/frameworks-doc.mjs [--check] [--reports DIR] [--cache DIR] [--out FILE]
//                                   [--expected DIR] [--blackbox NAME=EXAMPLE_DIR]...
//                                   [--cache-of NAME=CACHE_DIR]...
//
// --cache-of: the npm cache whose installed versions a row states, when not --cache (the row
// vercel-ai-5 is the bridge on ai 5, installed apart from the current majors).
// A report folder is a bridge (instrumented tier) when its report says so: its manifest is
// adapters/js/manifests/<name>.json. A black-box one (report tier "blackbox") is named by
// --blackbox with the example folder holding agent.mjs and manifest.json. Either way the
// baseline is <name>.txt in --expected (tests/frameworks/expected). Paths in the doc are relative
// to the repository. No dependency: Node 20's standard library.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/**
 * The label of a finding, from the comment that opens its group in the baseline
 * (`# framework: ...`, the words before the first colon). A baseline entry outside a labelled
 * group is an error: every finding the doc shows says whose it is. A comment of other words
 * (prose) or a blank line ends a group.
 */
export const LABELS = [
  {
    prefix: 'bridge defect',
    label: 'bridge defect',
    meaning: "the bridge's own mistake, to be fixed in adapters/js",
  },
  {
    prefix: 'framework',
    label: 'framework defect',
    meaning: 'the framework does what the contract forbids (a broken stream taken as a reply, a call stored with other arguments)',
  },
  {
    prefix: 'convention',
    label: 'SHOULD convention (wording)',
    meaning: "the framework answers in its own words where ock/1 fixes a text (the TEXT group, SHOULD): not a defect",
  },
  {
    prefix: 'policy',
    label: "deviation from the contract's policy",
    meaning: 'the framework does on purpose, its own way, what the contract specifies otherwise (no wrap-up turn, its own retries)',
  },
  {
    prefix: 'bridge',
    label: 'missing feature',
    meaning: "the framework has no such policy, or no hook for it, and the bridge does not emulate it (the manifest's `not_applied`)",
  },
];

const LEVELS = ['MUST', 'SHOULD'];

/** Parses a baseline: its entries, each with the group (label and text) it sits in. */
export function parseBaseline(text, file) {
  const entries = [];
  let group = null;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) {
      group = null;
      return;
    }
    if (line.startsWith('#')) {
      const m = /^#\s*([a-z][a-z ]*?)\s*:\s*(\S.*)$/.exec(line);
      const kind = m && LABELS.find((l) => l.prefix === m[1]);
      group = kind ? { label: kind.label, text: m[2].trim() } : null;
      return;
    }
    const entry = line.replace(/#.*$/, '').replace(/^-\s*/, '').trim();
    if (!entry) return;
    if (!group) {
      throw new Error(
        `${file}:${i + 1}: entry "${entry}" is not under a labelled group comment ` +
          `(# ${LABELS.map((l) => l.prefix).join(': ..., # ')}: ...)`,
      );
    }
    const colon = entry.indexOf(':');
    entries.push({
      scenario: colon < 0 ? entry : entry.slice(0, colon),
      part: colon < 0 ? null : entry.slice(colon + 1),
      label: group.label,
      text: group.text,
      line: i + 1,
    });
  });
  return entries;
}

/**
 * The installed versions of the packages a manifest's `framework` names as "<package> <major>"
 * ("ai 5 ... @ai-sdk/openai 2"). A stated version the installed one does not start with is an
 * error: the manifest is out of date. `python`: the packages are the virtualenv's, read from
 * <cache>/python-versions.json (`pip list --format json`, written by make test-frameworks), not
 * the npm cache's.
 */
export function frameworkVersions(framework, cache, file, python = false) {
  const found = [];
  const pyFile = join(cache, 'python-versions.json');
  const pip = python && existsSync(pyFile)
    ? new Map(JSON.parse(readFileSync(pyFile, 'utf8')).map((p) => [p.name.toLowerCase().replace(/[._]/g, '-'), p.version]))
    : new Map();
  for (const m of framework.matchAll(/(?:^|[\s(])(@[a-z0-9][\w.-]*\/[\w.-]+|[a-z][\w.-]*) (\d+(?:\.\d+)*)\b/g)) {
    const [, name, stated] = m;
    const pkg = python ? pyFile : join(cache, 'node_modules', name, 'package.json');
    const version = python ? pip.get(name) : existsSync(pkg) ? JSON.parse(readFileSync(pkg, 'utf8')).version : undefined;
    if (version === undefined) continue;
    if (version !== stated && !version.startsWith(`${stated}.`)) {
      throw new Error(`${file}: framework says ${name} ${stated}, ${relative(ROOT, pkg)} has ${version}`);
    }
    if (!found.some((f) => f.startsWith(`${name} `))) found.push(`${name} ${version}`);
  }
  return found;
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${relative(ROOT, file)}: ${err.code === 'ENOENT' ? 'missing' : err.message}`);
  }
}

/** True when a baseline entry covers this check of this scenario (SPEC.md 9.3). */
function covers(entry, scenario, check) {
  return entry.scenario === scenario && (entry.part === null || entry.part === check.requirement || entry.part === check.id);
}

/** Everything the doc says about one report folder. */
export function describe(name, { reports, cache, cacheOf = new Map(), expected, blackbox }) {
  const dir = join(reports, name);
  const report = readJson(join(dir, 'report.json'));
  const tier = report.tier ?? 'instrumented';
  let manifestFile;
  let how;
  let python = name.endsWith('-python');
  if (tier === 'blackbox') {
    const example = blackbox.get(name);
    if (!example) throw new Error(`${relative(ROOT, dir)}: a black-box report, but no --blackbox ${name}=EXAMPLE_DIR names its example`);
    manifestFile = relative(ROOT, resolve(ROOT, example, 'manifest.json'));
    python = existsSync(resolve(ROOT, example, 'agent.py'));
    const agent = resolve(ROOT, example, python ? 'agent.py' : 'agent.mjs');
    how = `black-box: \`${relative(ROOT, agent)}\`, the framework unmodified with its tools over MCP`;
  } else if (name.endsWith('-python')) {
    // A Python bridge (adapters/python/ock_frameworks): console script ock-<framework>.
    manifestFile = join('adapters/python/manifests', `${name}.json`);
    how = `instrumented: the Python bridge \`ock-${name.slice(0, -'-python'.length)}\` (adapters/python/ock_frameworks)`;
  } else {
    manifestFile = join('adapters/js/manifests', `${name}.json`);
    // The bridge is the one the report ran: vercel-ai-5 is ock-vercel-ai.js on ai 5.
    const bin = /bin\/(ock-[\w-]+)\.js/.exec(report.orchestrator.command)?.[1] ?? `ock-${name}`;
    how = `instrumented: the bridge \`adapters/js/bin/${bin}.js\``;
  }
  const manifest = readJson(resolve(ROOT, manifestFile));
  const baselineFile = relative(ROOT, join(expected, `${name}.txt`));
  const baseline = parseBaseline(readFileSync(resolve(ROOT, baselineFile), 'utf8'), baselineFile);
  const command = report.orchestrator.command.split(`${ROOT}/`).join('');
  const levelOf = new Map(report.requirements.map((r) => [r.id, r.level]));

  const graded = { MUST: new Set(), SHOULD: new Set() };
  const notMet = { MUST: new Set(), SHOULD: new Set() };
  for (const s of report.scenarios) {
    for (const c of s.checks) {
      const level = levelOf.get(c.requirement) ?? c.level;
      // A WARN no baseline entry covers happens on some runs only (see found): not counted, so
      // that the counts do not change from run to run with it.
      const sometimes = c.verdict === 'WARN' && c.expected_failure !== true;
      if (c.verdict !== 'SKIP' && !sometimes && graded[level]) graded[level].add(c.requirement);
      if (found(c)) notMet[level]?.add(c.requirement);
    }
  }
  const count = (level) => {
    const total = graded[level].size;
    return { total, passed: total - [...notMet[level]].filter((r) => graded[level].has(r)).length };
  };
  return {
    name,
    tier,
    how,
    framework: manifest.framework ?? manifest.name,
    versions: frameworkVersions(manifest.framework ?? '', cacheOf.get(name) ?? cache, manifestFile, python),
    capabilities: report.orchestrator.capabilities ?? [],
    wires: report.orchestrator.wires ?? ['openai', 'anthropic'],
    emulated: manifest.emulated ?? [],
    notApplied: manifest.not_applied ?? [],
    manifestFile,
    baselineFile,
    command,
    counts: Object.fromEntries(LEVELS.map((l) => [l, count(l)])),
    coverage: report.blackbox_coverage?.graded?.length ?? null,
    findings: findingsOf(report, baseline, baselineFile, levelOf),
  };
}

/**
 * A check the doc counts as a finding: a failure the baseline excused, or a FAIL or ERROR it did
 * not. A WARN no baseline entry covers is left out: it does not happen on every run, or the
 * baseline would list it (vercel-ai.txt says which), and the doc must not change with it.
 */
function found(c) {
  return c.expected_failure === true || c.verdict === 'FAIL' || c.verdict === 'ERROR';
}

/**
 * The checks a cause explains, "check (scenarios)", a check once (the expect.* checks report
 * under the requirement of their scenario, so one check can be listed under several).
 */
function explained(cause) {
  const counts = new Map();
  for (const k of cause.consequences ?? []) {
    if (k.expected_failure !== true && k.verdict !== 'FAIL' && k.verdict !== 'ERROR') continue;
    counts.set(k.check, (counts.get(k.check) ?? 0) + k.scenarios);
  }
  return [...counts].map(([check, n]) => `${check} (${n})`);
}

/**
 * The findings, one per first cause of the report (SPEC.md 9.8) and baseline group that excuses
 * it: the deviation, in how many scenarios it is found, the failing checks it explains there, its
 * label and text from that group, and the simplest of those scenarios to reproduce it. A cause
 * found in scenarios of two groups (a token-limit scenario and a policy one) is two rows, so a
 * row's text and its command are about the same scenarios. Sorted by cause id, then group.
 */
export function findingsOf(report, baseline, baselineFile, levelOf = new Map()) {
  const byId = new Map(report.scenarios.map((s) => [s.id, s]));
  const findings = [];
  for (const cause of report.causes ?? []) {
    const groups = new Map(); // the covering entry's group (or none) -> its roots
    for (const id of cause.scenarios) {
      const s = byId.get(id);
      const c = s?.checks.find((k) => k.id === cause.check && k.requirement === cause.requirement);
      if (!c || !found(c)) continue;
      const entry = c.expected_failure ? baseline.find((e) => covers(e, id, c)) ?? null : null;
      const key = entry ? `${entry.label}\u0000${entry.text}` : '';
      if (!groups.has(key)) groups.set(key, { entry, roots: [] });
      groups.get(key).roots.push({ scenario: id, check: c });
    }
    for (const { entry, roots } of groups.values()) {
      const simplest = roots.some((r) => r.scenario === cause.simplest?.scenario) ? cause.simplest.scenario : roots[0].scenario;
      findings.push({
        cause: cause.id,
        requirement: cause.requirement,
        level: levelOf.get(cause.requirement) ?? cause.level,
        label: entry ? entry.label : 'not in the baseline',
        text: entry ? entry.text : `${roots[0].check.verdict} ${cause.check}: the run failed; fix it or list it in ${baselineFile}`,
        scenarios: roots.length,
        explains: explained(cause),
        simplest,
      });
    }
  }
  return findings.sort((a, b) => a.cause.localeCompare(b.cause) || a.label.localeCompare(b.label) || a.text.localeCompare(b.text));
}

const cell = (s) => String(s).replace(/\|/g, '\\|');
const list = (a) => (a.length ? a.map((x) => `\`${x}\``).join(', ') : 'none');
const tierName = (t) => (t === 'blackbox' ? 'black-box' : 'instrumented');

function reproduce(fw, scenario) {
  const blackbox = fw.tier === 'blackbox' ? ' --blackbox' : '';
  return `build/bin/ock run${blackbox} --orchestrator "${fw.command}" --manifest ${fw.manifestFile} --case ${scenario}`;
}

/** The whole document. */
export function render(frameworks) {
  const out = [];
  out.push('# Frameworks: the conformance table');
  out.push('');
  out.push('<!-- Written by `make frameworks-doc` (scripts/frameworks-doc.mjs) from the reports of');
  out.push('     `make test-frameworks`; do not edit by hand. make test-frameworks fails when this');
  out.push('     file is not what its run makes. -->');
  out.push('');
  out.push('What `ock run` finds in the agent frameworks people build on, from a real run of');
  out.push('`make test-frameworks` against the pinned versions of `tests/frameworks/package-lock.json`');
  out.push('and, for the Python rows, `adapters/python/requirements.lock`.');
  out.push('Each framework is graded in one or both tiers: **instrumented**, through its bridge in');
  out.push('`adapters/js` or `adapters/python` (events and hooks of SPEC.md Section 4, with the capabilities its manifest');
  out.push('declares), and **black-box** (`ock run --blackbox`, SPEC.md 9.7), the framework unmodified');
  out.push('in an example agent with its tools over MCP and no line of OCK code.');
  out.push('');
  out.push('- **MUST** and **SHOULD** count the requirements of that level the run graded, and how many');
  out.push('  of them hold with no baseline entry excusing a check (`passed/graded`); a WARN no baseline');
  out.push('  entry covers happens on some runs only and is not counted.');
  out.push('- **Emulated** is what the bridge does in the framework\'s place (the manifest\'s');
  out.push('  `emulated`); every report shows it.');
  out.push('- **Findings** are the failures the committed expected-failures baseline');
  out.push('  (`tests/frameworks/expected/<name>.txt`, SPEC.md 9.3) lists, grouped by first cause');
  out.push('  (SPEC.md 9.8): one line per deviation, `<requirement>/<check>`, with the number of scenarios');
  out.push('  it is found in, the failing checks it explains there (and in how many scenarios), and the');
  out.push('  command that reproduces its simplest scenario (after `make test-frameworks`, which fills');
  out.push('  `build/frameworks`). A WARN that does not happen on every run is not in a baseline and not');
  out.push('  here; the reports in `build/frameworks/reports/<name>/` have every check.');
  out.push('');
  out.push('Each finding\'s label comes from the comment that opens its group in the baseline:');
  out.push('');
  out.push('| group comment | label | meaning |');
  out.push('|---|---|---|');
  for (const l of LABELS) out.push(`| \`# ${l.prefix}:\` | ${l.label} | ${l.meaning} |`);
  out.push('');
  out.push('A label is checked against the installed source of the pinned version, not taken from the');
  out.push('symptom. A framework defect is what the framework itself does. What a bridge owes is to report');
  out.push('what the framework does and to apply the replies of Section 4\'s hooks and keep the history');
  out.push('through the hooks the framework has: where it has one (ai 7\'s `prepareStep` and a validating');
  out.push('`jsonSchema`, `createReactAgent`\'s `preModelHook` and `postModelHook`, LangGraph\'s');
  out.push('`updateState`, the model a bridge wraps), the bridge uses it, or the finding is a bridge');
  out.push('defect. A policy of the contract the framework does not have (`error_strategy` `fail_fast`)');
  out.push('is a missing feature even where a hook would let the bridge emulate it: the table grades the');
  out.push('framework\'s policies, and a bridge emulates one only where its manifest says so');
  out.push('(`emulated`). A policy the framework has its own way (no wrap-up turn, its own retries) is a');
  out.push('deviation. The texts a framework gives its own results are its own, even where a hook could');
  out.push('rewrite them: a check of the TEXT group that fails only on wording is a SHOULD convention, one');
  out.push('whose result is not a text (a JSON error object) is a framework defect, and one that fails');
  out.push('because the call got no result at all, or was run when it must not be, carries the label of');
  out.push('that cause.');
  out.push('');
  out.push('## Summary');
  out.push('');
  out.push('| framework | tier | versions | capabilities | wires | MUST | SHOULD | emulated | findings |');
  out.push('|---|---|---|---|---|---|---|---|---|');
  for (const fw of frameworks) {
    out.push(
      `| [${fw.name}](#${fw.name}) | ${tierName(fw.tier)} | ${fw.versions.join(', ') || 'not found'} | ` +
        `${fw.capabilities.join(', ')} | ${fw.wires.join(', ')} | ` +
        `${fw.counts.MUST.passed}/${fw.counts.MUST.total} | ${fw.counts.SHOULD.passed}/${fw.counts.SHOULD.total} | ` +
        `${fw.emulated.join(', ') || 'nothing'} | ${fw.findings.length} |`,
    );
  }
  for (const fw of frameworks) {
    out.push('');
    out.push(`## ${fw.name}`);
    out.push('');
    out.push(`- Framework: ${fw.framework}`);
    out.push(`- Versions installed: ${fw.versions.join(', ') || 'not found in build/frameworks'}`);
    out.push(`- Tier: ${fw.how}`);
    out.push(`- Manifest: \`${fw.manifestFile}\`; baseline: \`${fw.baselineFile}\``);
    out.push(`- Capabilities declared: ${list(fw.capabilities)}; wires: ${list(fw.wires)}`);
    out.push(
      `- MUST ${fw.counts.MUST.passed}/${fw.counts.MUST.total}, SHOULD ${fw.counts.SHOULD.passed}/${fw.counts.SHOULD.total}` +
        (fw.coverage === null ? '' : ` (a black-box PASS covers ${fw.coverage} requirements of the registry, SPEC.md 9.7)`),
    );
    out.push(`- Emulated by the bridge: ${fw.tier === 'blackbox' ? 'no bridge' : list(fw.emulated)}`);
    if (fw.notApplied.length) {
      out.push('- Not applied (the manifest\'s `not_applied`):');
      for (const n of fw.notApplied) out.push(`  - ${n}`);
    }
    out.push('');
    if (!fw.findings.length) {
      out.push('No findings.');
      continue;
    }
    out.push('| cause | level | label | finding | scenarios | explains | reproduce |');
    out.push('|---|---|---|---|---:|---|---|');
    for (const f of fw.findings) {
      out.push(
        `| ${f.cause} | ${f.level} | ${f.label} | ${cell(f.text)} | ${f.scenarios} | ` +
          `${cell(f.explains.join(', ') || 'nothing else')} | \`${cell(reproduce(fw, f.simplest))}\` |`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}

function main(argv) {
  const opts = {
    check: false,
    reports: join(ROOT, 'build/frameworks/reports'),
    cache: join(ROOT, 'build/frameworks'),
    out: join(ROOT, 'docs/frameworks.md'),
    expected: join(ROOT, 'tests/frameworks/expected'),
    blackbox: new Map(),
    cacheOf: new Map(),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--check') opts.check = true;
    else if (a === '--reports') opts.reports = resolve(value());
    else if (a === '--cache') opts.cache = resolve(value());
    else if (a === '--out') opts.out = resolve(value());
    else if (a === '--expected') opts.expected = resolve(value());
    else if (a === '--blackbox') {
      const v = value();
      const eq = v.indexOf('=');
      if (eq <= 0) throw new Error(`--blackbox ${v}: expected NAME=EXAMPLE_DIR`);
      opts.blackbox.set(v.slice(0, eq), resolve(v.slice(eq + 1)));
    } else if (a === '--cache-of') {
      const v = value();
      const eq = v.indexOf('=');
      if (eq <= 0) throw new Error(`--cache-of ${v}: expected NAME=CACHE_DIR`);
      opts.cacheOf.set(v.slice(0, eq), resolve(v.slice(eq + 1)));
    } else throw new Error(`unknown option ${a}`);
  }
  if (!existsSync(opts.reports)) throw new Error(`${relative(ROOT, opts.reports)}: no reports; run make test-frameworks first`);
  const names = readdirSync(opts.reports, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  if (!names.length) throw new Error(`${relative(ROOT, opts.reports)}: no report folders; run make test-frameworks first`);
  const text = render(names.map((n) => describe(n, opts)));
  const target = relative(ROOT, opts.out);
  if (!opts.check) {
    writeFileSync(opts.out, text);
    console.log(`${target}: written from ${names.length} reports (${names.join(', ')})`);
    return 0;
  }
  const committed = existsSync(opts.out) ? readFileSync(opts.out, 'utf8') : '';
  if (committed === text) {
    console.log(`${target}: what this run makes (${names.join(', ')})`);
    return 0;
  }
  const a = committed.split('\n');
  const b = text.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  console.error(`${target} is not what this run makes: first difference at line ${i + 1}`);
  console.error(`  committed: ${a[i] ?? '(end of file)'}`);
  console.error(`  this run:  ${b[i] ?? '(end of file)'}`);
  console.error('run make frameworks-doc, review the difference (git diff) and commit it');
  return 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (err) {
    console.error(`frameworks-doc: ${err.message}`);
    process.exitCode = 2;
  }
}
