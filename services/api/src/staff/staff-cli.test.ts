import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StaffAccountResponse, StaffAccountsResponse } from '@opi/contract';
import { runAdminCli } from '@opi/testkit/admin-cli';
import { ADMIN_KEY, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';

// The staff commands of the admin CLI (staff:create, staff:role, staff:unrole, staff:list,
// staff:update) as a child process against a real API and its test database: every effect is read
// back from PostgreSQL and through the staff login API, and bad input exits 1 with the reason.
const OP_X = 'op_cli_staff_x';
const OP_Y = 'op_cli_staff_y';

let h: Harness;

before(async () => {
  h = await startApi();
  await createOperator(h.base, OP_X, { name: 'CLI Staff X' });
  await createOperator(h.base, OP_Y, { name: 'CLI Staff Y' });
});
after(async () => {
  await h?.close();
});

function cli(...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.OPI_API_URL;
  delete env.PROVIDER_ADMIN_KEY;
  return runAdminCli([...args, '--url', h.base, '--key', ADMIN_KEY], env);
}

async function ok(...args: string[]) {
  const run = await cli(...args);
  assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
  assert.equal(run.stderr, '');
  return run.json;
}

const loginStatus = async (username: string, password: string) =>
  (await call(h.base, 'POST', '/api/staff/v1/login', { body: { username, password } })).status;

async function loginToken(username: string, password: string): Promise<string> {
  const res = await call(h.base, 'POST', '/api/staff/v1/login', { body: { username, password } });
  assert.equal(res.status, 200, res.text);
  return res.json.data.token;
}

const staffGet = (token: string, path: string) =>
  call(h.base, 'GET', `/api/staff/v1${path}`, { headers: { authorization: `Bearer ${token}` } });

/** The operators the session sees, with its role on each (the staff API's /me). */
async function scope(token: string): Promise<string[]> {
  const me = await staffGet(token, '/me');
  assert.equal(me.status, 200, me.text);
  return me.json.data.operators.map(
    (o: { operator_id: string; role: string }) => `${o.operator_id}:${o.role}`,
  );
}

async function row(username: string) {
  const { rows } = await h.db.pool.query(
    `SELECT u.display_name, u.password_hash, u.provider_role, u.disabled,
            coalesce((SELECT array_agg(r.operator_id || ':' || r.role ORDER BY r.operator_id)
                      FROM staff_roles r WHERE r.staff_id = u.staff_id), '{}') AS roles
     FROM staff_users u WHERE u.username = $1`,
    [username],
  );
  return rows[0] as
    | {
        display_name: string;
        password_hash: string;
        provider_role: string | null;
        disabled: boolean;
        roles: string[];
      }
    | undefined;
}

describe('staff commands of the admin CLI', () => {
  test('create, grant a role, list, remove a role, reset the password, disable and enable: each effect in the database and at login', async () => {
    // Create with a role: the generated password is printed once; only its scrypt hash is stored.
    const created = await ok(
      'staff:create',
      '--username',
      'Dana.Ops',
      '--name',
      'Dana Ops',
      '--role',
      `${OP_X}=viewer`,
    );
    StaffAccountResponse.parse(created);
    assert.equal(created.data.username, 'dana.ops');
    assert.deepEqual(created.data.roles, [{ operator_id: OP_X, role: 'viewer' }]);
    const first = created.data.password as string;
    assert.match(first, /^[A-Za-z0-9_-]{20}$/);
    let stored = await row('dana.ops');
    assert.ok(stored);
    assert.equal(stored.display_name, 'Dana Ops');
    assert.match(stored.password_hash, /^scrypt\$/);
    assert.ok(!stored.password_hash.includes(first));
    assert.deepEqual(stored.roles, [`${OP_X}:viewer`]);
    const token = await loginToken('dana.ops', first);
    assert.deepEqual(await scope(token), [`${OP_X}:viewer`]);
    assert.equal((await staffGet(token, `/operators/${OP_Y}/sessions`)).status, 403);

    // A role on a second operator: the open session has it at its next request.
    const granted = await ok('staff:role', '--username', 'dana.ops', '--operator', OP_Y, '--role', 'admin');
    assert.deepEqual(granted.data.roles, [
      { operator_id: OP_X, role: 'viewer' },
      { operator_id: OP_Y, role: 'admin' },
    ]);
    assert.deepEqual((await row('dana.ops'))?.roles, [`${OP_X}:viewer`, `${OP_Y}:admin`]);
    assert.deepEqual(await scope(token), [`${OP_X}:viewer`, `${OP_Y}:admin`]);
    assert.equal((await staffGet(token, `/operators/${OP_Y}/sessions`)).status, 200);

    // The list shows the account and its roles, never a password or a hash.
    const list = await cli('staff:list');
    assert.equal(list.code, 0, list.stderr);
    StaffAccountsResponse.parse(list.json);
    const dana = list.json.data.items.find((s: { username: string }) => s.username === 'dana.ops');
    assert.deepEqual(
      { name: dana.display_name, roles: dana.roles, disabled: dana.disabled },
      {
        name: 'Dana Ops',
        roles: [
          { operator_id: OP_X, role: 'viewer' },
          { operator_id: OP_Y, role: 'admin' },
        ],
        disabled: false,
      },
    );
    assert.ok(!/password|scrypt\$/.test(list.stdout), 'no password and no hash in the list');

    // Removing the role on X: the same session is refused there at once.
    const unroled = await ok('staff:unrole', '--username', 'dana.ops', '--operator', OP_X);
    assert.deepEqual(unroled.data.roles, [{ operator_id: OP_Y, role: 'admin' }]);
    assert.deepEqual((await row('dana.ops'))?.roles, [`${OP_Y}:admin`]);
    assert.equal((await staffGet(token, `/operators/${OP_X}/sessions`)).status, 403);

    // A reset prints a new password once; the old one and the open session stop working.
    const reset = await ok('staff:update', '--username', 'dana.ops', '--reset-password');
    const second = reset.data.password as string;
    assert.match(second, /^[A-Za-z0-9_-]{20}$/);
    assert.notEqual(second, first);
    assert.notEqual((await row('dana.ops'))?.password_hash, stored.password_hash);
    assert.equal((await staffGet(token, '/me')).status, 401, 'a reset ends the sessions');
    assert.equal(await loginStatus('dana.ops', first), 401);
    assert.equal(await loginStatus('dana.ops', second), 200);

    // A chosen password and a new display name: nothing secret is printed.
    const chosen = 'dana-chosen-password-0001';
    const renamed = await ok(
      'staff:update',
      '--username',
      'dana.ops',
      '--password',
      chosen,
      '--name',
      'Dana O.',
    );
    assert.equal(renamed.data.display_name, 'Dana O.');
    assert.equal(renamed.data.password, undefined, 'a chosen password is not echoed');
    assert.equal(await loginStatus('dana.ops', second), 401);
    const live = await loginToken('dana.ops', chosen);
    assert.equal((await staffGet(live, '/me')).json.data.display_name, 'Dana O.');

    // Disabled: the session ends and the right password is refused; enabled again: it logs in.
    const disabled = await ok('staff:update', '--username', 'dana.ops', '--disable');
    assert.equal(disabled.data.disabled, true);
    stored = await row('dana.ops');
    assert.equal(stored?.disabled, true);
    assert.equal((await staffGet(live, '/me')).status, 401);
    assert.equal(await loginStatus('dana.ops', chosen), 401);
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM staff_sessions s JOIN staff_users u USING (staff_id)
       WHERE u.username = 'dana.ops' AND s.revoked_at IS NULL`,
    );
    assert.equal(rows[0].n, 0, 'every session of a disabled account is revoked');
    assert.equal((await ok('staff:update', '--username', 'dana.ops', '--enable')).data.disabled, false);
    assert.equal((await row('dana.ops'))?.disabled, false);
    assert.deepEqual(await scope(await loginToken('dana.ops', chosen)), [`${OP_Y}:admin`]);
  });

  test('provider staff: a provider role reaches every operator; --provider-role none takes it away, admin gives it back', async () => {
    const password = 'pat-provider-password-01';
    const created = await ok(
      'staff:create',
      '--username',
      'pat',
      '--provider-role',
      'viewer',
      '--password',
      password,
    );
    assert.equal(created.data.provider_role, 'viewer');
    assert.equal(created.data.password, undefined, 'a chosen password is not echoed');
    assert.equal((await row('pat'))?.provider_role, 'viewer');
    const token = await loginToken('pat', password);
    const seen = await scope(token);
    assert.ok(seen.includes(`${OP_X}:viewer`) && seen.includes(`${OP_Y}:viewer`), seen.join());

    const none = await ok('staff:update', '--username', 'pat', '--provider-role', 'none');
    assert.equal(none.data.provider_role, null);
    assert.equal((await row('pat'))?.provider_role, null);
    assert.equal((await staffGet(token, '/me')).status, 401, 'a role change ends the sessions');
    assert.deepEqual(await scope(await loginToken('pat', password)), []);
    const admin = await ok('staff:update', '--username', 'pat', '--provider-role', 'admin');
    assert.equal(admin.data.provider_role, 'admin');
    assert.ok((await scope(await loginToken('pat', password))).includes(`${OP_Y}:admin`));
  });

  test('bad input: exit 1, the reason on stderr, nothing on stdout, nothing changed', async () => {
    const accountsBefore = await h.db.pool.query(
      `SELECT username, disabled, provider_role FROM staff_users ORDER BY username`,
    );
    const cases: [string[], RegExp][] = [
      // Refused by the CLI itself, with the command's usage.
      [['staff:create'], /^admin: --username is required\n\nUsage: admin staff:create /],
      [
        ['staff:create', '--username', 'eve', '--role', OP_X],
        /--role takes <operator_id>=viewer\|admin, not op_cli_staff_x\n/,
      ],
      [
        ['staff:create', '--username', 'eve', '--bogus'],
        /Unknown option '--bogus'[\s\S]*Usage: admin staff:create/,
      ],
      [['staff:update', '--username', 'dana.ops'], /nothing to change: give at least one field/],
      [
        ['staff:update', '--username', 'dana.ops', '--disable', '--enable'],
        /--disable and --enable exclude each other/,
      ],
      [
        ['staff:update', '--username', 'dana.ops', '--password', 'x-long-password-123', '--reset-password'],
        /--password and --reset-password exclude each other/,
      ],
      [
        ['staff:role', '--username', 'dana.ops', '--operator', OP_X],
        /--role is required\n\nUsage: admin staff:role/,
      ],
      // Refused by the API: its status and detail.
      [
        ['staff:create', '--username', 'dana.ops'],
        /^admin: HTTP 409: Staff account dana\.ops already exists\n$/,
      ],
      [
        ['staff:create', '--username', 'eve', '--password', 'short'],
        /^admin: HTTP 422: body\.password: at least 12 characters\n$/,
      ],
      [['staff:create', '--username', 'x'], /^admin: HTTP 422: body\.username: letters, digits/],
      [
        ['staff:create', '--username', 'eve', '--role', 'op_missing=viewer'],
        /HTTP 404: Operator not found: op_missing/,
      ],
      [['staff:create', '--username', 'eve', '--role', `${OP_X}=owner`], /HTTP 422: body\.roles\.0\.role: /],
      [
        ['staff:role', '--username', 'nobody', '--operator', OP_X, '--role', 'viewer'],
        /HTTP 404: Staff account not found/,
      ],
      [
        ['staff:role', '--username', 'pat', '--operator', OP_X, '--role', 'admin'],
        /HTTP 409: Provider staff already hold a role/,
      ],
      [
        ['staff:unrole', '--username', 'dana.ops', '--operator', OP_X],
        /HTTP 404: This account holds no role on that operator/,
      ],
      [
        ['staff:update', '--username', 'dana.ops', '--provider-role', 'admin'],
        /HTTP 409: Remove the operator roles/,
      ],
      [
        ['staff:update', '--username', 'dana.ops', '--provider-role', 'root'],
        /HTTP 422: body\.provider_role: /,
      ],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli(...args)));
    runs.forEach((run, i) => {
      const [args, message] = cases[i]!;
      assert.equal(run.code, 1, `${args.join(' ')} exits 1`);
      assert.equal(run.stdout, '', `${args.join(' ')}: nothing on stdout`);
      assert.match(run.stderr, message, args.join(' '));
    });
    const accountsAfter = await h.db.pool.query(
      `SELECT username, disabled, provider_role FROM staff_users ORDER BY username`,
    );
    assert.deepEqual(accountsAfter.rows, accountsBefore.rows, 'no account was created or changed');
    assert.deepEqual((await row('dana.ops'))?.roles, [`${OP_Y}:admin`]);
  });
});
