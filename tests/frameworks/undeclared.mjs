// Prints, one per line, the ids of the scenarios in fixtures/ that need a capability the given
// manifest does not declare. make test-frameworks passes them to `ock run --exclude`: with an
// expected-failures baseline, `ock run` grades a scenario it skips for an undeclared capability
// as ERROR (its baseline step recomputes the verdict of a scenario that has no checks), so the
// bridges' runs leave those scenarios out instead of skipping them.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const [manifestPath, fixturesDir = 'fixtures'] = process.argv.slice(2);
if (!manifestPath) {
  process.stderr.write('usage: node undeclared.mjs MANIFEST [FIXTURES_DIR]\n');
  process.exit(2);
}
const declared = new Set(['core', ...JSON.parse(readFileSync(manifestPath, 'utf8')).capabilities]);
for (const file of readdirSync(fixturesDir).filter((f) => f.endsWith('.json')).sort()) {
  const fx = JSON.parse(readFileSync(join(fixturesDir, file), 'utf8'));
  if ((fx.capabilities ?? ['core']).some((c) => !declared.has(c))) process.stdout.write(`${fx.id}\n`);
}
