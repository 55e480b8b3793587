import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type AdminRequest,
  COMMANDS,
  formatDetail,
  helpText,
  type Invocation,
  parseInvocation,
  resolveAdminKey,
  resolveBaseUrl,
  splitList,
  UsageError,
} from './commands.js';

const A = '/api/admin/v1';

function request(...argv: string[]): AdminRequest {
  const parsed = parseInvocation(argv);
  assert.ok(!('help' in parsed), `${argv.join(' ')} is not a help request`);
  return parsed.request;
}

function usageError(argv: string[], message: RegExp) {
  assert.throws(
    () => parseInvocation(argv),
    (err: unknown) =>
      err instanceof UsageError && message.test(err.message) && err.usage.startsWith('Usage:'),
    argv.join(' '),
  );
}

describe('admin CLI: every command maps to its admin route', () => {
  test('games', () => {
    assert.deepEqual(request('games'), { method: 'GET', path: `${A}/games` });
  });
  test('operator:create with every option', () => {
    assert.deepEqual(
      request(
        'operator:create',
        '--id',
        'op_one',
        '--name',
        'One Casino',
        '--currency',
        'EUR',
        '--currencies',
        'EUR, USD,,GBP',
        '--bet-min',
        '10',
        '--bet-max',
        '5000',
        '--wallet-url',
        'https://wallet.example/api',
        '--wallet-secret',
        's'.repeat(20),
        '--status',
        'inactive',
        '--artwork-format',
        'horizontal',
      ),
      {
        method: 'POST',
        path: `${A}/operators`,
        json: {
          operator_id: 'op_one',
          name: 'One Casino',
          status: 'inactive',
          default_currency: 'EUR',
          allowed_currencies: ['EUR', 'USD', 'GBP'],
          bet_limits: { min: '10', max: '5000' },
          wallet_base_url: 'https://wallet.example/api',
          wallet_secret: 's'.repeat(20),
          artwork_format: 'horizontal',
        },
      },
    );
  });
  test('operator:create with the minimum sends only what was given (the API applies its defaults)', () => {
    assert.deepEqual(request('operator:create', '--id=op_two', '--name=Two'), {
      method: 'POST',
      path: `${A}/operators`,
      json: { operator_id: 'op_two', name: 'Two' },
    });
  });
  test('operator:update sends only the changed fields; rotate and clear', () => {
    assert.deepEqual(request('operator:update', '--id', 'op_one', '--status', 'active'), {
      method: 'PATCH',
      path: `${A}/operators/op_one`,
      json: { status: 'active' },
    });
    assert.deepEqual(
      request('operator:update', '--id', 'op_one', '--rotate-wallet-secret', '--clear-wallet-url').json,
      { wallet_base_url: null, rotate_wallet_secret: true },
    );
    assert.deepEqual(
      request('operator:update', '--id', 'op_one', '--bet-min', '1', '--bet-max', '2', '--currencies', 'USD')
        .json,
      { allowed_currencies: ['USD'], bet_limits: { min: '1', max: '2' } },
    );
  });
  test('operator:get, key:create, master-key:create, key:revoke', () => {
    assert.deepEqual(request('operator:get', '--id', 'op_one'), {
      method: 'GET',
      path: `${A}/operators/op_one`,
    });
    assert.deepEqual(request('key:create', '--operator', 'op_one'), {
      method: 'POST',
      path: `${A}/operators/op_one/api-keys`,
      json: {},
    });
    assert.deepEqual(request('key:create', '--operator', 'op_one', '--label', 'ci').json, { label: 'ci' });
    assert.deepEqual(request('master-key:create'), { method: 'POST', path: `${A}/master-keys`, json: {} });
    assert.deepEqual(request('master-key:create', '--label', 'ops').json, { label: 'ops' });
    assert.deepEqual(request('key:revoke', '--key-id', 'key_0123456789abcdef'), {
      method: 'DELETE',
      path: `${A}/api-keys/key_0123456789abcdef`,
    });
  });
  test('assign (enabled or --disabled), unassign, assignments', () => {
    assert.deepEqual(request('assign', '--operator', 'op_one', '--symbol', 'vs20emberfox'), {
      method: 'PUT',
      path: `${A}/operators/op_one/games/vs20emberfox`,
      json: { enabled: true },
    });
    assert.deepEqual(
      request('assign', '--operator', 'op_one', '--symbol', 'glacier-run', '--disabled').json,
      {
        enabled: false,
      },
    );
    assert.deepEqual(request('unassign', '--operator', 'op_one', '--symbol', 'vs20emberfox'), {
      method: 'DELETE',
      path: `${A}/operators/op_one/games/vs20emberfox`,
    });
    assert.deepEqual(request('assignments', '--operator', 'op_one'), {
      method: 'GET',
      path: `${A}/operators/op_one/games`,
    });
  });
  test('release with repeated --reason and --evidence', () => {
    assert.deepEqual(
      request(
        'release',
        '--symbol',
        'vs20emberfox',
        '--status',
        'blocked',
        '--version',
        '1.4.2',
        '--detail',
        'RTP drift',
        '--reason',
        'rtp',
        '--reason',
        'audio',
        '--evidence',
        'QA-7',
        '--deployment',
        'eu-1',
      ),
      {
        method: 'PUT',
        path: `${A}/release-registry/vs20emberfox`,
        json: {
          status: 'blocked',
          registry_version: '1.4.2',
          detail: 'RTP drift',
          reasons: ['rtp', 'audio'],
          evidence: ['QA-7'],
          deployment_identity: 'eu-1',
        },
      },
    );
    assert.deepEqual(request('release', '--symbol', 's', '--status', 'accepted', '--version', '1').json, {
      status: 'accepted',
      registry_version: '1',
    });
  });
  test('switch and operator-wallet take --on or --off', () => {
    assert.deepEqual(request('switch', '--provider', 'prov_b', '--on'), {
      method: 'PUT',
      path: `${A}/providers/prov_b/switch`,
      json: { enabled: true },
    });
    assert.deepEqual(request('switch', '--provider', 'prov_b', '--off').json, { enabled: false });
    assert.deepEqual(request('operator-wallet', '--symbol', 'cnmines', '--on'), {
      method: 'PUT',
      path: `${A}/games/cnmines/operator-wallet`,
      json: { enabled: true },
    });
  });
  test('artwork uploads a file, with or without a format', () => {
    assert.deepEqual(request('artwork', '--symbol', 'vs20emberfox', '--file', '/tmp/a.png'), {
      method: 'PUT',
      path: `${A}/games/vs20emberfox/artwork`,
      file: '/tmp/a.png',
    });
    assert.equal(
      request('artwork', '--symbol', 'vs20emberfox', '--file', 'a.svg', '--format', 'horizontal').path,
      `${A}/games/vs20emberfox/artwork?format=horizontal`,
    );
  });
  test('path parameters are percent-encoded (no traversal through an id)', () => {
    assert.equal(request('operator:get', '--id', '../../x?y#z').path, `${A}/operators/..%2F..%2Fx%3Fy%23z`);
    assert.equal(
      request('assign', '--operator', 'op one', '--symbol', 'a/b').path,
      `${A}/operators/op%20one/games/a%2Fb`,
    );
    assert.equal(
      request('artwork', '--symbol', 's', '--file', 'f', '--format', 'a&b=c').path,
      `${A}/games/s/artwork?format=a%26b%3Dc`,
    );
  });
  test('--url and --key are taken on every command', () => {
    const parsed = parseInvocation(['games', '--url', 'http://api:1', '--key', 'padm_x']) as Invocation;
    assert.equal(parsed.url, 'http://api:1');
    assert.equal(parsed.key, 'padm_x');
    const none = parseInvocation(['games']) as Invocation;
    assert.equal(none.url, undefined);
    assert.equal(none.key, undefined);
  });
  test('every command in the table is reachable and documented', () => {
    const names = Object.keys(COMMANDS).sort();
    assert.deepEqual(names, [
      'artwork',
      'assign',
      'assignments',
      'games',
      'key:create',
      'key:revoke',
      'master-key:create',
      'operator-wallet',
      'operator:create',
      'operator:get',
      'operator:update',
      'release',
      'staff:create',
      'staff:list',
      'staff:role',
      'staff:unrole',
      'staff:update',
      'switch',
      'unassign',
    ]);
    const list = helpText();
    for (const name of names) {
      assert.ok(list.includes(`  ${name} `), `${name} listed`);
      assert.match(helpText(name), new RegExp(`^Usage: admin ${name}`));
    }
  });
});

describe('admin CLI: usage errors and help', () => {
  test('help, help <command>, --help', () => {
    assert.deepEqual(parseInvocation(['help']), { help: helpText() });
    assert.deepEqual(parseInvocation(['--help']), { help: helpText() });
    assert.deepEqual(parseInvocation(['help', 'assign']), { help: helpText('assign') });
    assert.deepEqual(parseInvocation(['assign', '--help']), { help: helpText('assign') });
    assert.match(helpText('assign'), /--operator <operator_id> --symbol <symbol\|slug> \[--disabled\]/);
  });
  test('no command, unknown command, unknown or malformed option', () => {
    usageError([], /no command/);
    usageError(['operators'], /unknown command "operators"/);
    usageError(['games', '--bogus'], /Unknown option '--bogus'/);
    usageError(['games', 'extra'], /positional/);
    usageError(['operator:get', '--id'], /argument missing/);
    usageError(
      ['assign', '--operator', 'op', '--symbol', 's', '--disabled=yes'],
      /does not take an argument/,
    );
  });
  test('required options', () => {
    usageError(['operator:create', '--name', 'x'], /--id is required/);
    usageError(['operator:create', '--id', 'op'], /--name is required/);
    usageError(['operator:get'], /--id is required/);
    usageError(['operator:get', '--id', ''], /--id is required/);
    usageError(['key:create'], /--operator is required/);
    usageError(['key:revoke'], /--key-id is required/);
    usageError(['assign', '--operator', 'op'], /--symbol is required/);
    usageError(['release', '--symbol', 's', '--status', 'accepted'], /--version is required/);
    usageError(['artwork', '--symbol', 's'], /--file is required/);
  });
  test('options that go together or exclude each other', () => {
    usageError(['operator:create', '--id', 'op', '--name', 'x', '--bet-min', '1'], /go together/);
    usageError(['operator:update', '--id', 'op', '--bet-max', '1'], /go together/);
    usageError(['operator:update', '--id', 'op'], /nothing to change/);
    usageError(
      ['operator:update', '--id', 'op', '--rotate-wallet-secret', '--wallet-secret', 'x'],
      /exclude/,
    );
    usageError(
      ['operator:update', '--id', 'op', '--clear-wallet-url', '--wallet-url', 'https://x'],
      /exclude/,
    );
    usageError(['switch', '--provider', 'prov_b'], /exactly one of --on or --off/);
    usageError(['switch', '--provider', 'prov_b', '--on', '--off'], /exactly one of --on or --off/);
    usageError(['operator-wallet', '--symbol', 's'], /exactly one of --on or --off/);
  });
});

describe('admin CLI: base URL and key resolution', () => {
  test('base URL: --url, then OPI_API_URL, then the default; trailing slashes dropped', () => {
    assert.equal(resolveBaseUrl('http://a:1/', { OPI_API_URL: 'http://b:2' }), 'http://a:1');
    assert.equal(resolveBaseUrl(undefined, { OPI_API_URL: 'https://b.example/x//' }), 'https://b.example/x');
    assert.equal(resolveBaseUrl(undefined, {}), 'http://127.0.0.1:8080');
    assert.throws(() => resolveBaseUrl('not a url', {}), UsageError);
    assert.throws(() => resolveBaseUrl('ftp://x', {}), /must be http/);
  });
  test('key: --key, then PROVIDER_ADMIN_KEY, then the stack secrets file', () => {
    const secrets = () => JSON.stringify({ providerAdminKey: 'padm_file', serviceSecret: 'x' });
    assert.equal(resolveAdminKey('padm_flag', { PROVIDER_ADMIN_KEY: 'padm_env' }, secrets), 'padm_flag');
    assert.equal(resolveAdminKey(undefined, { PROVIDER_ADMIN_KEY: 'padm_env' }, secrets), 'padm_env');
    assert.equal(resolveAdminKey(undefined, {}, secrets), 'padm_file');
    assert.equal(
      resolveAdminKey(undefined, {}, () => undefined),
      undefined,
    );
    assert.equal(
      resolveAdminKey(undefined, {}, () => '{not json'),
      undefined,
    );
    assert.equal(
      resolveAdminKey(undefined, {}, () => '{"providerAdminKey":42}'),
      undefined,
    );
  });
  test('error details: strings as they are, 422 arrays as loc: msg lines', () => {
    assert.equal(formatDetail({ detail: 'Operator not found' }), 'Operator not found');
    assert.equal(
      formatDetail({
        detail: [
          { loc: ['body', 'name'], msg: 'Too small', type: 'too_small' },
          { loc: ['body', 'bet_limits', 'max'], msg: 'min must not exceed max', type: 'custom' },
        ],
      }),
      'body.name: Too small\nbody.bet_limits.max: min must not exceed max',
    );
    assert.equal(formatDetail({ error: 'x' }), '{"error":"x"}');
  });
  test('splitList', () => {
    assert.deepEqual(splitList(' EUR ,USD,, '), ['EUR', 'USD']);
    assert.deepEqual(splitList(''), []);
  });
});
