#!/usr/bin/env node
// The two steps of `make frameworks-update` that are not npm or ock run:
//
//   node scripts/frameworks-update.mjs pins PACKAGE_JSON
//       moves each pin of PACKAGE_JSON (exact versions) to the newest release of its current
//       major (the registry's answer to `npm view NAME@^X.Y.Z version`; for a 0.x pin, ^ keeps
//       the minor, as npm reads it) and prints each move.
//   node scripts/frameworks-update.mjs diff --reports DIR --expected DIR NAME...
//       for each NAME, compares what build/frameworks/reports/NAME/report.json found with the
//       baseline tests/frameworks/expected/NAME.txt (SPEC.md 9.3): "+ scenario:requirement" a
//       failure (FAIL or WARN) the baseline does not cover, "- entry" an entry that covers
//       nothing this run found (stale). Exit 0 either way: the diff is for a person to review.
//
// No dependency but npm on PATH (for `pins`).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

/** The newest version of NAME within ^PIN, from the registry. */
function newestInMajor(name, pin) {
  const out = execFileSync('npm', ['view', `${name}@^${pin}`, 'version', '--json'], { encoding: 'utf8' });
  const v = JSON.parse(out);
  const list = Array.isArray(v) ? v : [v];
  return list.at(-1);
}

function pins(file) {
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  let moved = 0;
  for (const [name, pin] of Object.entries(pkg.dependencies ?? {})) {
    if (!/^\d+\.\d+\.\d+$/.test(pin)) throw new Error(`${file}: ${name} ${pin} is not an exact version`);
    const newest = newestInMajor(name, pin);
    if (newest && newest !== pin) {
      console.log(`${name}: ${pin} -> ${newest}`);
      pkg.dependencies[name] = newest;
      moved += 1;
    }
  }
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
  console.log(`${file}: ${moved} pin(s) moved`);
}

/** A baseline's entries: `scenario` or `scenario:part`, comments and blank lines left out. */
function entriesOf(text) {
  return text
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').replace(/^\s*-\s*/, '').trim())
    .filter(Boolean)
    .map((entry) => {
      const colon = entry.indexOf(':');
      return { entry, scenario: colon < 0 ? entry : entry.slice(0, colon), part: colon < 0 ? null : entry.slice(colon + 1) };
    });
}

/** True when the baseline entry covers check c of scenario s (SPEC.md 9.3; wires by id). */
function covers(e, s, c) {
  const base = s.id.includes('@') ? s.id.slice(0, s.id.lastIndexOf('@')) : s.id;
  const named = e.scenario === s.id || e.scenario === base || (s.wire && e.scenario === `${base}@${s.wire}`);
  return named && (e.part === null || e.part === c.requirement || e.part === c.id);
}

function diff(reports, expected, names) {
  for (const name of names) {
    const reportFile = join(reports, name, 'report.json');
    const baselineFile = join(expected, `${name}.txt`);
    if (!existsSync(reportFile)) {
      console.log(`== ${name}: no report (${reportFile})`);
      continue;
    }
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    const baseline = existsSync(baselineFile) ? entriesOf(readFileSync(baselineFile, 'utf8')) : [];
    const used = new Set();
    const added = new Set();
    for (const s of report.scenarios) {
      for (const c of s.checks) {
        const failed = c.expected_failure === true || c.verdict === 'FAIL' || c.verdict === 'WARN';
        if (!failed) continue;
        const hits = baseline.filter((e) => covers(e, s, c));
        hits.forEach((e) => used.add(e.entry));
        if (!hits.length) added.add(`${s.id}:${c.requirement}`);
      }
    }
    const played = new Set(report.scenarios.map((s) => s.id.replace(/@[^@]*$/, '')));
    const stale = baseline.filter((e) => !used.has(e.entry) && played.has(e.scenario.replace(/@[^@]*$/, '')));
    console.log(`== ${name}: ${added.size} new, ${stale.length} stale (${baselineFile})`);
    for (const a of [...added].sort()) console.log(`+ ${a}`);
    for (const e of stale) console.log(`- ${e.entry}`);
  }
}

function main(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === 'pins' && rest.length === 1) return pins(rest[0]);
  if (cmd === 'diff') {
    let reports = 'build/frameworks/reports';
    let expected = 'tests/frameworks/expected';
    const names = [];
    for (let i = 0; i < rest.length; i++) {
      if (rest[i] === '--reports') reports = rest[++i];
      else if (rest[i] === '--expected') expected = rest[++i];
      else names.push(rest[i]);
    }
    return diff(reports, expected, names);
  }
  throw new Error('usage: frameworks-update.mjs pins PACKAGE_JSON | diff [--reports DIR] [--expected DIR] NAME...');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    console.error(`frameworks-update: ${err.message}`);
    process.exitCode = 2;
  }
}
