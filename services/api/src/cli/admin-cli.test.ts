import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type CliRun, runAdminCli } from '@opi/testkit/admin-cli';
import { ADMIN_KEY, call, freePort, type Harness, startApi } from '@opi/testkit/harness';

/* The admin CLI as a child process against a real API (harness), over HTTP, every request signed. */

let h: Harness;
let tmp: string;

before(async () => {
  h = await startApi();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'opi-admin-cli-'));
});
after(async () => {
  await h.close();
  await rm(tmp, { recursive: true, force: true });
});

/** Runs the CLI; `--url` and `--key` are added unless `env` is given (then the environment decides). */
function cli(args: string[], env?: Record<string, string>): Promise<CliRun> {
  const argv = env ? args : [...args, '--url', h.base, '--key', ADMIN_KEY];
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!env) {
    delete childEnv.OPI_API_URL;
    delete childEnv.PROVIDER_ADMIN_KEY;
  }
  return runAdminCli(argv, childEnv);
}

test('create an operator, a key, assign a game, revoke the key', async () => {
  const created = await cli([
    'operator:create',
    '--id',
    'op_cli',
    '--name',
    'CLI Casino',
    '--currency',
    'EUR',
    '--currencies',
    'EUR,USD',
    '--bet-min',
    '20',
    '--bet-max',
    '20000',
    '--wallet-url',
    'https://wallet.cli.example/api',
  ]);
  assert.equal(created.code, 0, created.stderr);
  assert.equal(created.json.data.operator_id, 'op_cli');
  assert.deepEqual(created.json.data.allowed_currencies, ['EUR', 'USD']);
  assert.deepEqual(created.json.data.bet_limits, { min: '20', max: '20000' });
  assert.match(created.json.data.wallet_secret, /^wsec_/);

  const key = await cli(['key:create', '--operator', 'op_cli', '--label', 'from the CLI']);
  assert.equal(key.code, 0, key.stderr);
  const { api_key: apiKey, key_id: keyId } = key.json.data;
  assert.match(apiKey, /^opk_/);

  const assigned = await cli(['assign', '--operator', 'op_cli', '--symbol', 'ember-fox-fortunes']);
  assert.equal(assigned.code, 0, assigned.stderr);
  assert.deepEqual(assigned.json.data, { operator_id: 'op_cli', symbol: 'vs20emberfox', enabled: true });

  const assignments = await cli(['assignments', '--operator', 'op_cli']);
  assert.equal(assignments.code, 0, assignments.stderr);
  assert.deepEqual(assignments.json.data.launchable_games, ['vs20emberfox']);

  // The new key sees the assigned game in its catalog.
  const catalog = await call(h.base, 'GET', '/api/provider/v1/games', { key: apiKey, sign: true });
  assert.equal(catalog.status, 200);
  assert.deepEqual(
    catalog.json.data.items.map((g: { symbol: string }) => g.symbol),
    ['vs20emberfox'],
  );

  const revoked = await cli(['key:revoke', '--key-id', keyId]);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.deepEqual(revoked.json.data, { key_id: keyId, revoked: true });
  assert.equal((await call(h.base, 'GET', '/api/provider/v1/games', { key: apiKey })).status, 401);

  // Revoking again: the API's 404, exit 1, the detail on stderr and nothing on stdout.
  const again = await cli(['key:revoke', '--key-id', keyId]);
  assert.equal(again.code, 1);
  assert.equal(again.stdout, '');
  assert.match(again.stderr, /HTTP 404: API key not found or already revoked/);
});

test('the remaining commands against the same API', async () => {
  const update = await cli([
    'operator:update',
    '--id',
    'op_cli',
    '--artwork-format',
    'horizontal',
    '--rotate-wallet-secret',
  ]);
  assert.equal(update.code, 0, update.stderr);
  assert.equal(update.json.data.artwork_format, 'horizontal');
  assert.match(update.json.data.wallet_secret, /^wsec_/);
  const got = await cli(['operator:get', '--id', 'op_cli']);
  assert.equal(got.json.data.artwork_format, 'horizontal');
  assert.equal(got.json.data.wallet_secret, undefined);

  const games = await cli(['games']);
  assert.equal(games.code, 0, games.stderr);
  assert.ok(games.json.data.total > 10);

  const master = await cli(['master-key:create', '--label', 'ops']);
  assert.match(master.json.data.api_key, /^pmk_/);

  const release = await cli([
    'release',
    '--symbol',
    'vs20emberfox',
    '--status',
    'blocked',
    '--version',
    '0.0.1-cli',
    '--reason',
    'a',
    '--reason',
    'b',
  ]);
  assert.equal(release.code, 0, release.stderr);
  assert.deepEqual(release.json.data.reasons, ['a', 'b']);

  const on = await cli(['switch', '--provider', 'prov_b', '--on']);
  assert.deepEqual(on.json.data, { provider_id: 'prov_b', enabled: true });
  assert.equal((await cli(['switch', '--provider', 'prov_b', '--off'])).json.data.enabled, false);
  const flag = await cli(['operator-wallet', '--symbol', 'cnmines', '--on']);
  assert.deepEqual(flag.json.data, { symbol: 'cnmines', operator_wallet_enabled: true });

  const svg = path.join(tmp, 'art.svg');
  const bytes =
    '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>';
  await writeFile(svg, bytes);
  const art = await cli(['artwork', '--symbol', 'vs20emberfox', '--file', svg, '--format', 'horizontal']);
  assert.equal(art.code, 0, art.stderr);
  assert.equal(art.json.data.content_type, 'image/svg+xml');
  const served = await fetch(`${h.base}/api/provider/v1/game-art/vs20emberfox?operator_id=op_cli`);
  assert.equal(await served.text(), bytes);

  const unassigned = await cli(['unassign', '--operator', 'op_cli', '--symbol', 'vs20emberfox']);
  assert.deepEqual(unassigned.json.data, { operator_id: 'op_cli', symbol: 'vs20emberfox', assigned: false });
});

test('failures: exit 1 with the detail on stderr', async () => {
  const missing = await cli(['operator:get', '--id', 'op_missing']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /HTTP 404: Operator not found/);

  const invalid = await cli(['operator:create', '--id', 'Bad Id', '--name', 'x', '--currency', 'eur']);
  assert.equal(invalid.code, 1);
  assert.match(invalid.stderr, /HTTP 422: body\.operator_id: .*\nbody\.default_currency: /);

  const badKey = await cli(['games', '--url', h.base, '--key', 'padm_wrong'], {});
  assert.equal(badKey.code, 1);
  assert.match(badKey.stderr, /HTTP 401: Invalid API key/);

  const usage = await cli(['switch', '--provider', 'prov_b']);
  assert.equal(usage.code, 1);
  assert.match(usage.stderr, /exactly one of --on or --off\n\nUsage: admin switch/);

  const closed = `http://127.0.0.1:${await freePort()}`;
  const unreachable = await cli(['games', '--url', closed, '--key', ADMIN_KEY], {});
  assert.equal(unreachable.code, 1);
  assert.match(unreachable.stderr, new RegExp(`cannot reach ${closed}: .*ECONNREFUSED`));

  const noFile = await cli(['artwork', '--symbol', 'vs20emberfox', '--file', path.join(tmp, 'nope.png')]);
  assert.equal(noFile.code, 1);
  assert.match(noFile.stderr, /no such file/);
});

test('help lists every command; the URL and key can come from the environment or the stack secrets', async () => {
  const help = await cli(['help'], {});
  assert.equal(help.code, 0);
  for (const name of ['games', 'operator:create', 'operator:update', 'key:revoke', 'artwork', 'help']) {
    assert.match(help.stdout, new RegExp(`\\n  ${name} `));
  }
  const viaEnv = await cli(['operator:get', '--id', 'op_cli'], {
    OPI_API_URL: h.base,
    PROVIDER_ADMIN_KEY: ADMIN_KEY,
  });
  assert.equal(viaEnv.code, 0, viaEnv.stderr);
  assert.equal(viaEnv.json.data.operator_id, 'op_cli');

  const dataDir = path.join(tmp, 'data');
  await rm(dataDir, { recursive: true, force: true });
  await mkdir(dataDir);
  await writeFile(path.join(dataDir, 'secrets.json'), JSON.stringify({ providerAdminKey: ADMIN_KEY }));
  const viaSecrets = await cli(['operator:get', '--id', 'op_cli', '--url', h.base], {
    DATA_DIR: dataDir,
    PROVIDER_ADMIN_KEY: '',
  });
  assert.equal(viaSecrets.code, 0, viaSecrets.stderr);

  const noKey = await cli(['games', '--url', h.base], {
    DATA_DIR: path.join(tmp, 'empty'),
    PROVIDER_ADMIN_KEY: '',
  });
  assert.equal(noKey.code, 1);
  assert.match(noKey.stderr, /no provider-admin key/);
});
