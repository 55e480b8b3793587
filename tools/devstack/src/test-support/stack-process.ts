import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { newRequestNonce, signOperatorRequest, unixSeconds } from '@opi/signing';
import { REPO_ROOT } from '../paths.js';
import { sleep } from '../wait.js';

export interface StackProcess {
  child: ChildProcess;
  /** Everything the stack and its services printed so far. */
  output(): string;
  /** The pids of the API processes that logged `api listening` so far. */
  apiListening(): Set<number>;
  /** The pids of the game-server processes that logged `game server listening` so far. */
  gameListening(): Set<number>;
}

/** The pids a service's processes logged with their listening line (`[name] {...}`). */
function listeningPids(output: string, name: string, message: string): Set<number> {
  const pids = new Set<number>();
  const prefix = `[${name}] `;
  for (const line of output.split('\n')) {
    if (!line.startsWith(prefix) || !line.includes(`"${message}"`)) continue;
    try {
      pids.add(JSON.parse(line.slice(prefix.length)).pid);
    } catch {}
  }
  return pids;
}

/**
 * `stack.ts` (with `args`, e.g. --cluster) as a child process of a test, resolved once it prints
 * `[stack] ready in`. Its own process group: when the test process ends (a timeout), the whole
 * stack is killed with it.
 */
export async function startStackProcess(env: NodeJS.ProcessEnv, args: string[] = []): Promise<StackProcess> {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', path.join(REPO_ROOT, 'tools/devstack/src/stack.ts'), ...args],
    { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  process.once('exit', () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      child.kill('SIGINT');
      process.exit(1);
    });
  }
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('[stack] ready in')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`stack exited with ${code}:\n${output.slice(-4000)}`)));
  });
  return {
    child,
    output: () => output,
    apiListening: () => listeningPids(output, 'api', 'api listening'),
    gameListening: () => listeningPids(output, 'game-server', 'game server listening'),
  };
}

/** Polls `check` (a throw counts as not yet) until it holds; fails the test after `ms`. */
export async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  ms = 20_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** pp-operator-v1 headers for one request with `key` (a fresh nonce unless given). */
export function signedHeaders(
  key: string,
  method: string,
  pathAndQuery: string,
  body = '',
  nonce = newRequestNonce(),
) {
  const timestamp = unixSeconds();
  return {
    'x-provider-api-key': key,
    'x-pp-timestamp': timestamp,
    'x-pp-nonce': nonce,
    'x-pp-signature': signOperatorRequest(key, { timestamp, nonce, method, pathAndQuery, body }),
  };
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/**
 * One request on a connection of its own (the API cluster primary hands each new connection to the
 * next process): HTTP, or HTTPS trusting `ca` when given.
 */
export function requestOnce(
  port: number,
  method: string,
  pathAndQuery: string,
  opts: { body?: string; headers?: Record<string, string>; ca?: Buffer; timeoutMs?: number } = {},
): Promise<Answer> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const options: https.RequestOptions = {
      host: '127.0.0.1',
      port,
      method,
      path: pathAndQuery,
      agent: false,
      headers: { ...(opts.body ? { 'content-type': 'application/json' } : {}), ...opts.headers },
      ...(opts.ca ? { ca: opts.ca } : {}),
    };
    const onAnswer = (res: http.IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => {
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    };
    const req = opts.ca ? https.request(options, onAnswer) : http.request(options, onAnswer);
    req.on('error', reject);
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`${method} ${pathAndQuery}: no answer within ${timeoutMs / 1000} s`)),
    );
    req.end(opts.body);
  });
}
