/**
 * The provider-admin CLI: every admin API route as a command, each request signed (pp-operator-v1)
 * with the provider-admin key.
 *
 *   node --conditions=source --import tsx services/api/src/cli/admin.ts <command> [options]
 *   npm run admin -- <command> [options]
 *
 * Prints the JSON response and exits 0 on 2xx; otherwise prints the error detail on stderr and
 * exits 1. `help` lists the commands.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newRequestNonce, signOperatorRequest, unixSeconds } from '@opi/signing';
import {
  type AdminRequest,
  formatDetail,
  parseInvocation,
  resolveAdminKey,
  resolveBaseUrl,
  UsageError,
} from './commands.js';

/** The repository root (this file is services/api/src/cli/admin.ts). */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The default stack keeps its secrets in DATA_DIR (default `.data`, relative to the repository). */
function readStackSecrets(): string | undefined {
  const file = path.join(path.resolve(REPO_ROOT, process.env.DATA_DIR || '.data'), 'secrets.json');
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

async function send(baseUrl: string, key: string, request: AdminRequest) {
  const url = new URL(baseUrl + request.path);
  const body =
    request.file !== undefined
      ? readFileSync(request.file)
      : request.json !== undefined
        ? Buffer.from(JSON.stringify(request.json))
        : undefined;
  const timestamp = unixSeconds();
  const nonce = newRequestNonce();
  const headers: Record<string, string> = {
    'x-provider-api-key': key,
    'x-pp-timestamp': timestamp,
    'x-pp-nonce': nonce,
    // The exact path and query on the request line, and the exact body bytes sent.
    'x-pp-signature': signOperatorRequest(key, {
      timestamp,
      nonce,
      method: request.method,
      pathAndQuery: url.pathname + url.search,
      body: body ?? '',
    }),
  };
  if (body !== undefined) {
    headers['content-type'] = request.file !== undefined ? 'application/octet-stream' : 'application/json';
  }
  const res = await fetch(url, { method: request.method, headers, ...(body ? { body } : {}) });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, ok: res.ok, json, text };
}

async function main(argv: string[]): Promise<number> {
  let invocation: ReturnType<typeof parseInvocation>;
  try {
    invocation = parseInvocation(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`admin: ${err.message}\n\n${err.usage}`);
      return 1;
    }
    throw err;
  }
  if ('help' in invocation) {
    process.stdout.write(invocation.help);
    return 0;
  }
  let baseUrl: string;
  try {
    baseUrl = resolveBaseUrl(invocation.url, process.env);
  } catch (err) {
    process.stderr.write(`admin: ${(err as Error).message}\n`);
    return 1;
  }
  const key = resolveAdminKey(invocation.key, process.env, readStackSecrets);
  if (!key) {
    process.stderr.write(
      'admin: no provider-admin key: pass --key, set PROVIDER_ADMIN_KEY, or start the default stack (npm start)\n',
    );
    return 1;
  }
  if (invocation.request.file !== undefined && !existsSync(invocation.request.file)) {
    process.stderr.write(`admin: no such file: ${invocation.request.file}\n`);
    return 1;
  }
  let res: Awaited<ReturnType<typeof send>>;
  try {
    res = await send(baseUrl, key, invocation.request);
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    process.stderr.write(`admin: cannot reach ${baseUrl}: ${cause}\n`);
    return 1;
  }
  if (res.ok) {
    process.stdout.write(`${res.json === undefined ? res.text : JSON.stringify(res.json, null, 2)}\n`);
    return 0;
  }
  const detail = res.json === undefined ? res.text.slice(0, 2000) : formatDetail(res.json);
  process.stderr.write(`admin: HTTP ${res.status}${detail ? `: ${detail}` : ''}\n`);
  return 1;
}

process.exitCode = await main(process.argv.slice(2));
