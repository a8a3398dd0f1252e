// The hand-written declarations of the bridges (types/<bridge>.d.ts) name exactly what each
// bridge module exports, and the generated types/client.d.ts names exactly what src/client.js
// exports (its content is checked against a fresh generation by make test's type check).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import './fakes/register.js';

const declared = (file) => {
  const text = readFileSync(new URL(`../types/${file}`, import.meta.url), 'utf8');
  return [...text.matchAll(/^export (?:declare )?(?:const|function|class) (\w+)/gm)].map((m) => m[1]).sort();
};
const exported = async (file) => Object.keys(await import(`../src/${file}`)).sort();

for (const name of ['client', 'vercel-ai', 'openai-agents', 'langgraph']) {
  test(`types/${name}.d.ts declares the exports of src/${name}.js`, async () => {
    assert.deepEqual(declared(`${name}.d.ts`), await exported(`${name}.js`));
  });
}
