// A small JSON Schema (draft 2020-12) validator for the keywords contract.schema.json uses:
// type, enum, const, properties, required, additionalProperties, items, minItems, minimum,
// maximum, minLength, pattern, allOf, anyOf, if/then and $ref (a "#/..." pointer, resolved in the
// schema resource it appears in: a schema with its own $id, such as the embedded report schema,
// is a resource of its own). Any other keyword throws, so a schema that starts using one fails
// here instead of passing unchecked.
const ANNOTATIONS = ['$schema', '$id', '$defs', 'title', 'description', 'default', 'about'];
const KNOWN = new Set([...ANNOTATIONS, 'type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items',
  'minItems', 'minimum', 'maximum', 'minLength', 'pattern', 'allOf', 'anyOf', 'if', 'then', '$ref']);

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function is(kind, v) {
  switch (kind) {
    case 'object': return isObj(v);
    case 'array': return Array.isArray(v);
    case 'string': return typeof v === 'string';
    case 'boolean': return typeof v === 'boolean';
    case 'null': return v === null;
    case 'integer': return Number.isInteger(v);
    case 'number': return typeof v === 'number';
    default: throw new Error(`unknown type ${kind}`);
  }
}

function resolve(root, ref) {
  if (!ref.startsWith('#')) throw new Error(`only local references are supported: ${ref}`);
  let node = root;
  for (const part of ref.slice(1).split('/').slice(1)) node = node[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  if (node === undefined) throw new Error(`unresolved reference ${ref}`);
  return node;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** What is wrong with `value` under `schema`, as "path: message" strings (empty when valid). */
export function schemaErrors(schema, value, root = null, path = '$') {
  if (schema === true || (isObj(schema) && Object.keys(schema).length === 0)) return [];
  const r = root === null || '$id' in schema ? schema : root;
  const unknown = Object.keys(schema).filter((k) => !KNOWN.has(k));
  if (unknown.length) throw new Error(`${path}: keyword(s) not supported: ${unknown.join(', ')}`);
  const out = [];
  if ('$ref' in schema) out.push(...schemaErrors(resolve(r, schema.$ref), value, r, path));
  if ('type' in schema) {
    const kinds = [].concat(schema.type);
    if (!kinds.some((k) => is(k, value))) return [...out, `${path}: expected ${kinds.join('/')}, got ${JSON.stringify(value)}`];
  }
  if ('const' in schema && !same(value, schema.const)) out.push(`${path}: expected ${JSON.stringify(schema.const)}`);
  if ('enum' in schema && !schema.enum.some((e) => same(e, value))) out.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (typeof value === 'number') {
    if ('minimum' in schema && value < schema.minimum) out.push(`${path}: ${value} < ${schema.minimum}`);
    if ('maximum' in schema && value > schema.maximum) out.push(`${path}: ${value} > ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    if ('minLength' in schema && [...value].length < schema.minLength) out.push(`${path}: shorter than ${schema.minLength}`);
    if ('pattern' in schema && !new RegExp(schema.pattern, 'u').test(value)) out.push(`${path}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
  }
  if (isObj(value)) {
    const props = schema.properties ?? {};
    for (const key of schema.required ?? []) if (!(key in value)) out.push(`${path}: missing ${key}`);
    for (const [key, v] of Object.entries(value)) {
      if (key in props) out.push(...schemaErrors(props[key], v, r, `${path}.${key}`));
      else if (schema.additionalProperties === false) out.push(`${path}: unexpected ${key}`);
      else if (isObj(schema.additionalProperties)) out.push(...schemaErrors(schema.additionalProperties, v, r, `${path}.${key}`));
    }
  }
  if (Array.isArray(value)) {
    if ('minItems' in schema && value.length < schema.minItems) out.push(`${path}: fewer than ${schema.minItems} items`);
    if ('items' in schema) value.forEach((v, i) => out.push(...schemaErrors(schema.items, v, r, `${path}[${i}]`)));
  }
  for (const sub of schema.allOf ?? []) out.push(...schemaErrors(sub, value, r, path));
  if ('anyOf' in schema && schema.anyOf.every((sub) => schemaErrors(sub, value, r, path).length)) out.push(`${path}: matches none of anyOf`);
  if ('if' in schema && 'then' in schema && schemaErrors(schema.if, value, r, path).length === 0) out.push(...schemaErrors(schema.then, value, r, path));
  return out;
}

/** The errors of `value` against `$defs/<def>` of the contract schema. */
export const contractErrors = (contract, def, value) => schemaErrors({ $ref: `#/$defs/${def}` }, value, contract);
