import { test } from 'node:test';
import assert from 'node:assert/strict';
import { denyReason, parseArguments, resultText, injection, Denied, deniedIn, firstProvider, providerError } from '../src/bridge.js';

test('a deny reason is the reply reason, a fixed text for ask_user, or "no reason given"', () => {
  assert.equal(denyReason({ action: 'deny', reason: 'Budget exhausted' }), 'Budget exhausted');
  assert.equal(denyReason({ action: 'deny', reason: '' }), 'no reason given');
  assert.equal(denyReason({ action: 'deny' }), 'no reason given');
  assert.equal(denyReason({ action: 'ask_user', reason: 'ignored' }), 'No approval system available');
});

test('arguments are the object they parse to, {} when empty, else the raw string', () => {
  assert.deepEqual(parseArguments('{"city": "Paris"}'), { city: 'Paris' });
  assert.deepEqual(parseArguments(''), {});
  assert.deepEqual(parseArguments('  \n'), {});
  assert.equal(parseArguments('["Paris"]'), '["Paris"]');
  assert.equal(parseArguments('{"city": "Par'), '{"city": "Par');
  assert.equal(parseArguments('42'), '42');
  assert.deepEqual(parseArguments({ a: 1 }), { a: 1 });
});

test('result texts follow SPEC.md 5.11', () => {
  assert.equal(resultText({ success: true, output: '15 degrees', error: null }), '15 degrees');
  assert.equal(resultText({ success: true, output: { t: 15, u: 'C' }, error: null }), '{"t":15,"u":"C"}');
  assert.equal(resultText({ success: true }), 'null');
  assert.equal(resultText({ success: false, output: null, error: { message: 'boom' } }), 'Error: boom');
  assert.equal(resultText({ success: false, output: null, error: null }), 'Error: unknown error');
});

test('an injection needs inject_context and a non-empty text; the role defaults to system', () => {
  assert.equal(injection({ action: 'continue' }), null);
  assert.equal(injection({ action: 'inject_context', context_injection: '' }), null);
  assert.deepEqual(injection({ action: 'inject_context', context_injection: 'note', ephemeral: true }), { role: 'system', text: 'note', ephemeral: true });
  assert.equal(injection({ action: 'inject_context', context_injection: 'n', context_injection_role: 'user' }).role, 'user');
});

test('a Denied is found through the cause chain a framework wraps it in', () => {
  const d = new Denied('stop');
  assert.equal(deniedIn(d), d);
  assert.equal(deniedIn(new Error('outer', { cause: new Error('mid', { cause: d }) })), d);
  assert.equal(deniedIn(new Error('plain')), null);
  assert.equal(deniedIn(undefined), null);
});

test('the first provider is the lowest priority number, then the first listed', () => {
  const session = { providers: [{ name: 'b', priority: 2 }, { name: 'a', priority: 1 }, { name: 'c', priority: 1 }] };
  assert.equal(firstProvider(session).name, 'a');
  assert.equal(firstProvider({ providers: [] }), null);
});

test('provider errors: status (also in a cause), timeout, cancellation, connection', () => {
  const http = Object.assign(new Error('Rate limit reached'), { status: 429 });
  assert.deepEqual(providerError(http), { error: { type: 'http_error', message: 'HTTP 429: Rate limit reached' }, retryable: true, status_code: 429 });
  const wrapped = new Error('wrapped', { cause: Object.assign(new Error('bad'), { status: 400 }) });
  assert.equal(providerError(wrapped).status_code, 400);
  assert.equal(providerError(wrapped).retryable, false);
  const timeout = Object.assign(new Error('Request timed out.'), { name: 'APIConnectionTimeoutError' });
  assert.deepEqual(providerError(timeout).error.type, 'timeout');
  assert.equal(providerError(timeout).retryable, true);
  const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
  assert.equal(providerError(abort).error.type, 'cancelled');
  assert.equal(providerError(abort).retryable, false);
  const conn = Object.assign(new Error('Connection error.'), { name: 'APIConnectionError' });
  assert.deepEqual(providerError(conn), { error: { type: 'connection_error', message: 'Connection error.' }, retryable: true, status_code: null });
});
