// Shared by the official-SDK tests of make test-frameworks: the frameworks' cache, the standalone
// mock (started per test file, stopped and waited for), and a fetch that timestamps requests.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { once } from 'node:events';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CACHE = process.env.OCK_FRAMEWORKS_CACHE;

/** Imports a package from the cache that make test-frameworks filled (never from the repo). */
export async function importCached(name) {
  if (!CACHE) throw new Error('OCK_FRAMEWORKS_CACHE is not set: run these tests through make test-frameworks');
  const require = createRequire(join(resolve(CACHE), 'package.json'));
  return import(pathToFileURL(require.resolve(name)).href);
}

/** The installed version of a cached package, for messages. */
export function cachedVersion(name) {
  const require = createRequire(join(resolve(CACHE), 'package.json'));
  return require(`${name}/package.json`).version;
}

/**
 * Starts `ock-mock-provider --fixture F` and resolves once it printed its URL. `stop()` sends
 * SIGTERM, waits for the exit and returns its status, so no process outlives a test file.
 */
export async function startMock(fixture) {
  const bin = join(ROOT, 'build/bin/ock-mock-provider');
  const child = spawn(bin, ['--fixture', join(ROOT, fixture)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const url = await new Promise((resolveUrl, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolveUrl(out.slice(0, nl).trim());
    });
    child.on('exit', (code) => reject(new Error(`ock-mock-provider exited ${code} before printing its URL: ${err}`)));
  });
  return {
    url,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode };
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code, signal] = await exited;
      return { code, signal, stderr: err };
    },
  };
}

/** A fetch that records the time and body of every request it sends. */
export function recordingFetch() {
  const log = [];
  const fetchImpl = async (input, init = {}) => {
    log.push({ at: performance.now(), url: String(input instanceof Request ? input.url : input), body: init.body ?? null });
    return fetch(input, init);
  };
  return { fetch: fetchImpl, log };
}

/** True while a process with this pid exists. */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The upper bound of a retry's wait in the SDK tests. The lower bound is what shows that the SDK
 * waited as the header said (its own first backoff is under 0.5 s); the upper bound only catches
 * a wait far too long (a header read in the wrong unit), with room for a busy shared machine,
 * where a 1.2 s wait was once measured at 2.5 s.
 */
export const SLOW_MACHINE_MS = 4000;
