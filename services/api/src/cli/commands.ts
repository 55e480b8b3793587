/**
 * The provider-admin CLI's pure part: command-line arguments to an admin API request, and where
 * the base URL and admin key come from. No I/O here (admin.ts sends the request), so every mapping
 * is unit-tested.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** One admin API call: the path (and query) under the base URL and its body. */
export interface AdminRequest {
  method: HttpMethod;
  path: string;
  /** A JSON body. */
  json?: Record<string, unknown>;
  /** A raw body read from this file (artwork uploads). */
  file?: string;
}

export interface Invocation {
  command: string;
  request: AdminRequest;
  /** `--url` / `--key` as given, before the environment and defaults are consulted. */
  url: string | undefined;
  key: string | undefined;
}

/** The user asked for help (`help`, `help <command>`, `--help`): print `text`, exit 0. */
export interface HelpRequest {
  help: string;
}

/** Bad command-line usage: print the message and the usage, exit 1. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export const ADMIN_PREFIX = '/api/admin/v1';
export const DEFAULT_URL = 'http://127.0.0.1:8080';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | string[] | undefined>;

interface CommandSpec {
  summary: string;
  usage: string;
  options: Options;
  build(v: Values, fail: (message: string) => never): AdminRequest;
}

const GLOBAL_OPTIONS: Options = {
  url: { type: 'string' },
  key: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const OPERATOR_FIELDS: Options = {
  name: { type: 'string' },
  currency: { type: 'string' },
  currencies: { type: 'string' },
  'bet-min': { type: 'string' },
  'bet-max': { type: 'string' },
  'wallet-url': { type: 'string' },
  'wallet-secret': { type: 'string' },
  status: { type: 'string' },
  'artwork-format': { type: 'string' },
};

const OPERATOR_FIELDS_USAGE =
  '[--name <name>] [--currency <XXX>] [--currencies <A,B,...>] [--bet-min <minor>] [--bet-max <minor>]\n' +
  '    [--wallet-url <url>] [--wallet-secret <secret>] [--status active|inactive]\n' +
  '    [--artwork-format vertical|horizontal]';

const seg = (value: string) => encodeURIComponent(value);
const str = (v: Values, name: string) => v[name] as string | undefined;

function required(v: Values, name: string, fail: (m: string) => never): string {
  const value = str(v, name);
  if (value === undefined || value === '') fail(`--${name} is required`);
  return value;
}

function onOff(v: Values, fail: (m: string) => never): boolean {
  if (v.on === v.off) fail('give exactly one of --on or --off');
  return v.on === true;
}

/** `A, b ,C` → ['A', 'b', 'C'] (empty items dropped). */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The operator fields given on the command line, as the admin API names them. */
function operatorFields(v: Values, fail: (m: string) => never): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (str(v, 'name') !== undefined) body.name = str(v, 'name');
  if (str(v, 'status') !== undefined) body.status = str(v, 'status');
  if (str(v, 'currency') !== undefined) body.default_currency = str(v, 'currency');
  if (str(v, 'currencies') !== undefined) body.allowed_currencies = splitList(str(v, 'currencies')!);
  const min = str(v, 'bet-min');
  const max = str(v, 'bet-max');
  if ((min === undefined) !== (max === undefined)) fail('--bet-min and --bet-max go together');
  if (min !== undefined) body.bet_limits = { min, max };
  if (str(v, 'wallet-url') !== undefined) body.wallet_base_url = str(v, 'wallet-url');
  if (str(v, 'wallet-secret') !== undefined) body.wallet_secret = str(v, 'wallet-secret');
  if (str(v, 'artwork-format') !== undefined) body.artwork_format = str(v, 'artwork-format');
  return body;
}

export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  games: {
    summary: 'list every installed title with version, mode, flags and readiness',
    usage: 'games',
    options: {},
    build: () => ({ method: 'GET', path: `${ADMIN_PREFIX}/games` }),
  },
  'operator:create': {
    summary: 'create an operator (the generated wallet secret is shown once)',
    usage: `operator:create --id <operator_id> --name <name> ${OPERATOR_FIELDS_USAGE}`,
    options: { id: { type: 'string' }, ...OPERATOR_FIELDS },
    build(v, fail) {
      const id = required(v, 'id', fail);
      required(v, 'name', fail);
      return {
        method: 'POST',
        path: `${ADMIN_PREFIX}/operators`,
        json: { operator_id: id, ...operatorFields(v, fail) },
      };
    },
  },
  'operator:update': {
    summary: 'change an operator; --rotate-wallet-secret shows the new secret once',
    usage: `operator:update --id <operator_id> ${OPERATOR_FIELDS_USAGE}\n    [--clear-wallet-url] [--rotate-wallet-secret]`,
    options: {
      id: { type: 'string' },
      ...OPERATOR_FIELDS,
      'clear-wallet-url': { type: 'boolean' },
      'rotate-wallet-secret': { type: 'boolean' },
    },
    build(v, fail) {
      const id = required(v, 'id', fail);
      const body = operatorFields(v, fail);
      if (v['clear-wallet-url']) {
        if (body.wallet_base_url !== undefined)
          fail('--clear-wallet-url and --wallet-url exclude each other');
        body.wallet_base_url = null;
      }
      if (v['rotate-wallet-secret']) {
        if (body.wallet_secret !== undefined) {
          fail('--rotate-wallet-secret and --wallet-secret exclude each other');
        }
        body.rotate_wallet_secret = true;
      }
      if (Object.keys(body).length === 0) fail('nothing to change: give at least one field');
      return { method: 'PATCH', path: `${ADMIN_PREFIX}/operators/${seg(id)}`, json: body };
    },
  },
  'operator:get': {
    summary: 'show an operator (never its wallet secret)',
    usage: 'operator:get --id <operator_id>',
    options: { id: { type: 'string' } },
    build: (v, fail) => ({
      method: 'GET',
      path: `${ADMIN_PREFIX}/operators/${seg(required(v, 'id', fail))}`,
    }),
  },
  'key:create': {
    summary: 'create an operator API key (shown once)',
    usage: 'key:create --operator <operator_id> [--label <label>]',
    options: { operator: { type: 'string' }, label: { type: 'string' } },
    build: (v, fail) => ({
      method: 'POST',
      path: `${ADMIN_PREFIX}/operators/${seg(required(v, 'operator', fail))}/api-keys`,
      json: str(v, 'label') === undefined ? {} : { label: str(v, 'label') },
    }),
  },
  'master-key:create': {
    summary: 'create a provider master key (internal; never for operators or players)',
    usage: 'master-key:create [--label <label>]',
    options: { label: { type: 'string' } },
    build: (v) => ({
      method: 'POST',
      path: `${ADMIN_PREFIX}/master-keys`,
      json: str(v, 'label') === undefined ? {} : { label: str(v, 'label') },
    }),
  },
  'key:revoke': {
    summary: 'revoke an API key by its key id',
    usage: 'key:revoke --key-id <key_id>',
    options: { 'key-id': { type: 'string' } },
    build: (v, fail) => ({
      method: 'DELETE',
      path: `${ADMIN_PREFIX}/api-keys/${seg(required(v, 'key-id', fail))}`,
    }),
  },
  assign: {
    summary: 'assign a title to an operator (enabled unless --disabled)',
    usage: 'assign --operator <operator_id> --symbol <symbol|slug> [--disabled]',
    options: { operator: { type: 'string' }, symbol: { type: 'string' }, disabled: { type: 'boolean' } },
    build: (v, fail) => ({
      method: 'PUT',
      path: `${ADMIN_PREFIX}/operators/${seg(required(v, 'operator', fail))}/games/${seg(required(v, 'symbol', fail))}`,
      json: { enabled: v.disabled !== true },
    }),
  },
  unassign: {
    summary: 'remove a title from an operator',
    usage: 'unassign --operator <operator_id> --symbol <symbol|slug>',
    options: { operator: { type: 'string' }, symbol: { type: 'string' } },
    build: (v, fail) => ({
      method: 'DELETE',
      path: `${ADMIN_PREFIX}/operators/${seg(required(v, 'operator', fail))}/games/${seg(required(v, 'symbol', fail))}`,
    }),
  },
  assignments: {
    summary: "an operator's assigned titles, blocked ones included, with the blockers explained",
    usage: 'assignments --operator <operator_id>',
    options: { operator: { type: 'string' } },
    build: (v, fail) => ({
      method: 'GET',
      path: `${ADMIN_PREFIX}/operators/${seg(required(v, 'operator', fail))}/games`,
    }),
  },
  release: {
    summary: 'record a release-registry decision for an exact version',
    usage:
      'release --symbol <symbol|slug> --status accepted|blocked --version <registry_version>\n' +
      '    [--detail <text>] [--reason <text>]... [--evidence <text>]... [--deployment <identity>]',
    options: {
      symbol: { type: 'string' },
      status: { type: 'string' },
      version: { type: 'string' },
      detail: { type: 'string' },
      reason: { type: 'string', multiple: true },
      evidence: { type: 'string', multiple: true },
      deployment: { type: 'string' },
    },
    build(v, fail) {
      const symbol = required(v, 'symbol', fail);
      const json: Record<string, unknown> = {
        status: required(v, 'status', fail),
        registry_version: required(v, 'version', fail),
      };
      if (str(v, 'detail') !== undefined) json.detail = str(v, 'detail');
      if (v.reason !== undefined) json.reasons = v.reason;
      if (v.evidence !== undefined) json.evidence = v.evidence;
      if (str(v, 'deployment') !== undefined) json.deployment_identity = str(v, 'deployment');
      return { method: 'PUT', path: `${ADMIN_PREFIX}/release-registry/${seg(symbol)}`, json };
    },
  },
  switch: {
    summary: 'turn a provider family switch on or off (prov_b)',
    usage: 'switch --provider <provider_id> --on|--off',
    options: { provider: { type: 'string' }, on: { type: 'boolean' }, off: { type: 'boolean' } },
    build: (v, fail) => ({
      method: 'PUT',
      path: `${ADMIN_PREFIX}/providers/${seg(required(v, 'provider', fail))}/switch`,
      json: { enabled: onOff(v, fail) },
    }),
  },
  'operator-wallet': {
    summary: 'turn the per-title operator-wallet flag on or off (prov_c, prov_d)',
    usage: 'operator-wallet --symbol <symbol|slug> --on|--off',
    options: { symbol: { type: 'string' }, on: { type: 'boolean' }, off: { type: 'boolean' } },
    build: (v, fail) => ({
      method: 'PUT',
      path: `${ADMIN_PREFIX}/games/${seg(required(v, 'symbol', fail))}/operator-wallet`,
      json: { enabled: onOff(v, fail) },
    }),
  },
  artwork: {
    summary: 'upload a PNG, JPEG, WebP or SVG thumbnail (type sniffed by the API)',
    usage: 'artwork --symbol <symbol|slug> --file <path> [--format vertical|horizontal]',
    options: { symbol: { type: 'string' }, file: { type: 'string' }, format: { type: 'string' } },
    build(v, fail) {
      const symbol = required(v, 'symbol', fail);
      const file = required(v, 'file', fail);
      const format = str(v, 'format');
      const query = format === undefined ? '' : `?format=${seg(format)}`;
      return { method: 'PUT', path: `${ADMIN_PREFIX}/games/${seg(symbol)}/artwork${query}`, file };
    },
  },
  'staff:create': {
    summary: 'create a staff portal account (a generated password is shown once)',
    usage:
      'staff:create --username <name> [--name <display name>] [--password <password>]\n' +
      '    [--provider-role viewer|admin] [--role <operator_id>=viewer|admin]...',
    options: {
      username: { type: 'string' },
      name: { type: 'string' },
      password: { type: 'string' },
      'provider-role': { type: 'string' },
      role: { type: 'string', multiple: true },
    },
    build(v, fail) {
      const json: Record<string, unknown> = { username: required(v, 'username', fail) };
      if (str(v, 'name') !== undefined) json.display_name = str(v, 'name');
      if (str(v, 'password') !== undefined) json.password = str(v, 'password');
      if (str(v, 'provider-role') !== undefined) json.provider_role = str(v, 'provider-role');
      if (v.role !== undefined) {
        json.roles = (v.role as string[]).map((grant) => {
          const [operatorId, role, ...rest] = grant.split('=');
          if (!operatorId || !role || rest.length)
            fail(`--role takes <operator_id>=viewer|admin, not ${grant}`);
          return { operator_id: operatorId, role };
        });
      }
      return { method: 'POST', path: `${ADMIN_PREFIX}/staff`, json };
    },
  },
  'staff:list': {
    summary: 'list the staff portal accounts and their roles',
    usage: 'staff:list',
    options: {},
    build: () => ({ method: 'GET', path: `${ADMIN_PREFIX}/staff` }),
  },
  'staff:update': {
    summary: 'change a staff account; --reset-password shows the new password once',
    usage:
      'staff:update --username <name> [--name <display name>] [--password <password> | --reset-password]\n' +
      '    [--provider-role viewer|admin|none] [--disable | --enable]',
    options: {
      username: { type: 'string' },
      name: { type: 'string' },
      password: { type: 'string' },
      'reset-password': { type: 'boolean' },
      'provider-role': { type: 'string' },
      disable: { type: 'boolean' },
      enable: { type: 'boolean' },
    },
    build(v, fail) {
      const username = required(v, 'username', fail);
      const json: Record<string, unknown> = {};
      if (str(v, 'name') !== undefined) json.display_name = str(v, 'name');
      if (str(v, 'password') !== undefined) json.password = str(v, 'password');
      if (v['reset-password']) {
        if (json.password !== undefined) fail('--password and --reset-password exclude each other');
        json.reset_password = true;
      }
      const providerRole = str(v, 'provider-role');
      if (providerRole !== undefined) json.provider_role = providerRole === 'none' ? null : providerRole;
      if (v.disable && v.enable) fail('--disable and --enable exclude each other');
      if (v.disable || v.enable) json.disabled = v.disable === true;
      if (Object.keys(json).length === 0) fail('nothing to change: give at least one field');
      return { method: 'PATCH', path: `${ADMIN_PREFIX}/staff/${seg(username)}`, json };
    },
  },
  'staff:role': {
    summary: "grant (or change) a staff account's role on an operator",
    usage: 'staff:role --username <name> --operator <operator_id> --role viewer|admin',
    options: { username: { type: 'string' }, operator: { type: 'string' }, role: { type: 'string' } },
    build: (v, fail) => ({
      method: 'PUT',
      path: `${ADMIN_PREFIX}/staff/${seg(required(v, 'username', fail))}/roles/${seg(required(v, 'operator', fail))}`,
      json: { role: required(v, 'role', fail) },
    }),
  },
  'staff:unrole': {
    summary: "remove a staff account's role on an operator",
    usage: 'staff:unrole --username <name> --operator <operator_id>',
    options: { username: { type: 'string' }, operator: { type: 'string' } },
    build: (v, fail) => ({
      method: 'DELETE',
      path: `${ADMIN_PREFIX}/staff/${seg(required(v, 'username', fail))}/roles/${seg(required(v, 'operator', fail))}`,
    }),
  },
};

const GLOBAL_USAGE =
  'Global options: --url <base url> (else $OPI_API_URL, else http://127.0.0.1:8080)\n' +
  '                --key <provider-admin key> (else $PROVIDER_ADMIN_KEY, else .data/secrets.json)';

/** The command list, or one command's usage. */
export function helpText(command?: string): string {
  const spec = command === undefined ? undefined : COMMANDS[command];
  if (spec) return `Usage: admin ${spec.usage}\n\n${spec.summary}\n\n${GLOBAL_USAGE}\n`;
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, s]) => `  ${name.padEnd(width)}  ${s.summary}`);
  return (
    'Usage: admin <command> [options]\n\n' +
    'Calls the provider admin API (/api/admin/v1); every request is signed (pp-operator-v1).\n\n' +
    `Commands:\n${lines.join('\n')}\n  ${'help'.padEnd(width)}  this list, or \`help <command>\` for its options\n\n` +
    `${GLOBAL_USAGE}\n`
  );
}

/** argv (without node and the script) → the request to send, or a help request. Throws UsageError. */
export function parseInvocation(argv: readonly string[]): Invocation | HelpRequest {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('no command given', helpText());
  if (command === 'help' || command === '--help' || command === '-h') return { help: helpText(rest[0]) };
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command "${command}"`, helpText());
  const usage = helpText(command);
  let values: Values;
  try {
    ({ values } = parseArgs({
      args: [...rest],
      options: { ...GLOBAL_OPTIONS, ...spec.options },
      strict: true,
      allowPositionals: false,
    }) as { values: Values });
  } catch (err) {
    throw new UsageError((err as Error).message, usage);
  }
  if (values.help) return { help: usage };
  const fail = (message: string): never => {
    throw new UsageError(message, usage);
  };
  return { command, request: spec.build(values, fail), url: str(values, 'url'), key: str(values, 'key') };
}

/** `--url`, else $OPI_API_URL, else the default stack's address; no trailing slash. */
export function resolveBaseUrl(flag: string | undefined, env: Record<string, string | undefined>): string {
  const raw = flag || env.OPI_API_URL || DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`not a URL: ${raw}`, GLOBAL_USAGE);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`the API URL must be http(s): ${raw}`, GLOBAL_USAGE);
  }
  return raw.replace(/\/+$/, '');
}

/**
 * `--key`, else $PROVIDER_ADMIN_KEY, else `providerAdminKey` of the default stack's secrets file
 * (`readSecrets` returns its text, or undefined when there is none).
 */
export function resolveAdminKey(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  readSecrets: () => string | undefined,
): string | undefined {
  if (flag) return flag;
  if (env.PROVIDER_ADMIN_KEY) return env.PROVIDER_ADMIN_KEY;
  const text = readSecrets();
  if (text === undefined) return undefined;
  try {
    const key = (JSON.parse(text) as { providerAdminKey?: unknown }).providerAdminKey;
    return typeof key === 'string' && key ? key : undefined;
  } catch {
    return undefined;
  }
}

/** An error body's `detail` as lines (422 arrays become `loc: msg`). */
export function formatDetail(body: unknown): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: { loc?: unknown[]; msg?: unknown }) =>
        Array.isArray(d.loc) ? `${d.loc.join('.')}: ${String(d.msg)}` : JSON.stringify(d),
      )
      .join('\n');
  }
  return body === undefined ? '' : JSON.stringify(body);
}
