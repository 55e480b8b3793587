import { type Pool, prepared } from '@opi/db';

/** A launched session as the runtime routes of every family see it. */
export interface RuntimeSession {
  session_id: string;
  operator_id: string;
  /** The operator's external_player_id (sent to the wallet unchanged). */
  external_player_id: string;
  player_id: string;
  symbol: string;
  provider_id: 'prov_a' | 'prov_b' | 'prov_c' | 'prov_d';
  currency: string;
  return_url: string | null;
  coin_minor: bigint | null;
  device: string | null;
  lang: string | null;
  expires_at: Date | null;
  /**
   * Whether the player holds any free-round grant with rounds left (any campaign, any title; read
   * with the session by its launch token). False: sessions/free-rounds.ts skips its query.
   */
  free_rounds_granted?: boolean;
  /**
   * Whether the session's operator is active, as authentication read it (the database, this very
   * request). False: no new round (sessions/takes-bets.ts; the round's statement checks again).
   */
  operator_active?: boolean;
  /**
   * The most a slot spin may stake in this session (GB: per currency and age band; migration 25),
   * or null: no cap. Read with the session; the spin refuses a stake above it (422 `stake_above_cap`).
   */
  max_stake_minor?: bigint | null;
  /**
   * The unit the pages show amounts in (issue 39; the launch's `display_unit`), or null: the
   * currency's first unit. docs/currencies.md.
   */
  display_unit?: string | null;
  /**
   * The stake ladder the session is frozen with (issue 39: a crypto currency launched without a
   * coin; sessions/stake-ladders.ts), or null.
   */
  stake_ladder_id?: string | null;
}

/** A runtime session with what authentication checks: its status and (prov_c) its grant's deadline. */
export type SessionRow = RuntimeSession & { status: string; grant_expires_at: Date | null };

/** A crash session reached through a live page authorization (crash/authorization.ts issues them). */
export type CrashSession = RuntimeSession & { status: string; authorization_id: string };

const SESSION_COLUMNS = `s.session_id, s.operator_id, p.external_player_id, s.player_id, s.symbol, s.provider_id,
       trim(s.currency) AS currency, s.return_url, s.coin_minor, s.device, s.lang, s.max_stake_minor,
       s.display_unit, s.stake_ladder_id,
       (SELECT o.status = 'active' FROM operators o WHERE o.operator_id = s.operator_id) AS operator_active`;

/**
 * The session whose launch token (`sessions.token_hash`) hashes to `tokenHash`: the slot families'
 * `mgckey` and the native grant; a crash login grant is found too (the caller refuses it).
 */
export async function findLaunchTokenSession(pool: Pool, tokenHash: string): Promise<SessionRow | undefined> {
  const { rows } = await pool.query<SessionRow>(
    prepared(
      `SELECT ${SESSION_COLUMNS}, s.expires_at, s.status, s.grant_expires_at,
            EXISTS (SELECT 1 FROM free_round_grants g
                     WHERE g.operator_id = s.operator_id AND g.external_player_id = p.external_player_id
                       AND g.rounds_used < g.rounds_total) AS free_rounds_granted
     FROM sessions s JOIN players p ON p.player_id = s.player_id
     WHERE s.token_hash = $1`,
      [tokenHash],
    ),
  );
  return rows[0];
}

/**
 * The session a native play token belongs to (status and expiry are checked by the caller), or
 * undefined. Only while its grant is the session's current launch. native/play-token.ts issues them.
 */
export async function findPlayTokenSession(pool: Pool, tokenHash: string): Promise<SessionRow | undefined> {
  const { rows } = await pool.query<SessionRow>(
    prepared(
      `SELECT ${SESSION_COLUMNS}, s.expires_at, s.status, NULL::timestamptz AS grant_expires_at
     FROM native_play_tokens t
     JOIN sessions s ON s.session_id = t.session_id AND s.token_hash = t.grant_hash
     JOIN players p ON p.player_id = s.player_id
     WHERE t.token_hash = $1`,
      [tokenHash],
    ),
  );
  return rows[0];
}

/** The session behind a live (unexpired, unrevoked) crash authorization token hash. */
export async function findCrashSession(pool: Pool, tokenHash: string): Promise<CrashSession | undefined> {
  const { rows } = await pool.query<CrashSession>(
    prepared(
      `SELECT ${SESSION_COLUMNS}, a.authorized_until AS expires_at, s.status, a.authorization_id
     FROM crash_authorizations a
     JOIN sessions s ON s.session_id = a.session_id
     JOIN players p ON p.player_id = s.player_id
     WHERE a.token_hash = $1 AND a.revoked_at IS NULL AND a.authorized_until > now()`,
      [tokenHash],
    ),
  );
  return rows[0];
}

/**
 * The session a runtime token opens, whatever its kind, before status and expiry checks:
 * - a slot launch token (`mgckey`) or a native grant: the session's own launch token;
 * - prov_d: the launch URL's login grant is no runtime token; the crash page exchanges it for a
 *   session authorization (crash/authorization.ts): one hour unless revoked;
 * - prov_c: the launch URL's grant counts only for its 5 minutes; the page exchanges it for a
 *   play token (native/play-token.ts) that lasts the 30-minute play session.
 */
export async function findRuntimeSession(pool: Pool, tokenHash: string): Promise<SessionRow | undefined> {
  const launched = await findLaunchTokenSession(pool, tokenHash);
  if (launched?.provider_id === 'prov_d') return undefined;
  return (
    launched ??
    (await findPlayTokenSession(pool, tokenHash)) ??
    (await findCrashSession(pool, tokenHash).then((s) => s && { ...s, grant_expires_at: null }))
  );
}
