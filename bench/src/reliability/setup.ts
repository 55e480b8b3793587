import { signedOk } from './http.js';
import { ADMIN_KEY, type ReliabilityStack } from './stack.js';

export interface OperatorSetup {
  operatorId: string;
  key: string;
  keyId: string;
  walletSecret: string;
  /** Slot titles (prov_a and prov_b) assigned and launchable. */
  slots: { symbol: string; providerId: 'prov_a' | 'prov_b' }[];
  /** A prov_c title with operator-wallet transport on (native history reads). */
  native: string | undefined;
  currencies: string[];
}

export interface World {
  /** The operators the load plays on. */
  operators: OperatorSetup[];
  /**
   * Every operator whose money the invariants check: those under load, and any a check adds for
   * itself (the hostile input's suspended operator, reactivated once its case is done).
   */
  audited: OperatorSetup[];
  /** The operator whose wallet secret the wrong-secret scenario breaks. */
  primary: OperatorSetup;
  /** Promotional money the load's spins feed and win (issue 25): ids the invariants check. */
  promotions: { jackpotId: string; dropId: string; tournamentId: string; tournamentEndsAt: Date };
}

/**
 * Issue 25's promotional money over the load's slot titles, both operators opted in, EUR and USD:
 * a network jackpot with two levels hit often enough for a run to see many hits (mini about one
 * spin in 50 at a stake of 100), a prize drop (one qualifying spin in 15 wins while its prizes
 * last, so concurrent spins meet at the last prizes), and a total-win tournament that ends during
 * the fault scenarios (`tournamentSeconds` after setup), so its payouts go through them.
 */
async function configurePromotions(
  stack: ReliabilityStack,
  admin: (method: string, p: string, body?: unknown) => Promise<any>,
  operators: OperatorSetup[],
  titles: string[],
  tournamentSeconds: number,
): Promise<World['promotions']> {
  const jackpotId = 'rel-jp';
  const per = (seed: number, hitEvery: number) => ({
    EUR: { seed_minor: seed, hit_every_minor: hitEvery },
    USD: { seed_minor: seed, hit_every_minor: hitEvery },
  });
  await admin('PUT', `/api/admin/v1/jackpots/${jackpotId}`, {
    name: 'Reliability Jackpot',
    scope: 'network',
    titles,
    levels: [
      { level: 'mini', contribution_rate_ppm: 20_000, currencies: per(500, 5_000) },
      { level: 'major', contribution_rate_ppm: 5_000, currencies: per(5_000, 60_000) },
    ],
  });
  const tournamentId = 'rel-cup';
  const tournamentEndsAt = new Date(Date.now() + tournamentSeconds * 1000);
  await admin('PUT', `/api/admin/v1/tournaments/${tournamentId}`, {
    name: 'Reliability Cup',
    scoring: 'total_win',
    starts_at: new Date(Date.now() - 1_000).toISOString(),
    ends_at: tournamentEndsAt.toISOString(),
    titles,
    currencies: {
      EUR: { min_stake_minor: 1, prizes: [5_000, 3_000, 2_000, 1_000, 500] },
      USD: { min_stake_minor: 1, prizes: [5_000, 3_000, 2_000, 1_000, 500] },
    },
  });
  for (const o of operators) {
    await admin('PUT', `/api/admin/v1/jackpots/${jackpotId}/operators/${o.operatorId}`, { enabled: true });
    await admin('PUT', `/api/admin/v1/tournaments/${tournamentId}/operators/${o.operatorId}`, {
      enabled: true,
    });
  }
  // The prize drop as its definition is stored (the definition has no admin route yet).
  const dropId = 'rel-drop';
  await stack.pool.query(
    `WITH d AS (
       INSERT INTO prize_drops (drop_id, name, starts_at, ends_at)
       VALUES ($1, 'Reliability Drop', now() - interval '1 minute', now() + interval '1 day')
     ), t AS (INSERT INTO prize_drop_titles SELECT $1, unnest($2::text[]))
     , o AS (INSERT INTO prize_drop_operators (drop_id, operator_id, opted_in) SELECT $1, unnest($3::text[]), true)
     INSERT INTO prize_drop_pools (drop_id, currency, prize_minor, prizes_total, prizes_left, min_stake_minor, award_every_spins)
     VALUES ($1, 'EUR', 300, 60, 60, 1, 15), ($1, 'USD', 300, 60, 60, 1, 15)`,
    [dropId, titles, operators.map((o) => o.operatorId)],
  );
  return { jackpotId, dropId, tournamentId, tournamentEndsAt };
}

/**
 * Configures the platform through its admin API, as staff would: the prov_b family switch on, two
 * operators (wallet = the sandbox, EUR and USD), two prov_a and two prov_b titles each, a prov_c
 * title with operator-wallet transport for native history, an operator key each; and the
 * operators' callback secrets in the sandbox wallet.
 */
export async function configure(stack: ReliabilityStack, tournamentSeconds = 60): Promise<World> {
  const origin = stack.apiOrigin(stack.apis[0]!);
  const admin = (method: string, p: string, body?: unknown) => signedOk(origin, ADMIN_KEY, method, p, body);
  await admin('PUT', '/api/admin/v1/providers/prov_b/switch', { enabled: true });
  const games = (await admin('GET', '/api/admin/v1/games')).data.items as any[];
  const accepted = (provider: string) =>
    games
      .filter(
        (g) =>
          g.provider_id === provider &&
          g.release_readiness?.accepted &&
          g.launch_path &&
          g.integration_mode === 'operator-wallet',
      )
      .map((g) => g.symbol as string);
  const provA = accepted('prov_a').slice(0, 2);
  const provB = accepted('prov_b').slice(0, 2);
  const native = accepted('prov_c')[0];
  if (provA.length < 2 || provB.length < 2)
    throw new Error('the catalog lacks launchable prov_a/prov_b titles');
  if (native) await admin('PUT', `/api/admin/v1/games/${native}/operator-wallet`, { enabled: true });

  const operators: OperatorSetup[] = [];
  for (const operatorId of ['op_rel_a', 'op_rel_b']) {
    const walletSecret = `wsec_${operatorId}_${'0123456789abcdef'.repeat(2)}`;
    await admin('POST', '/api/admin/v1/operators', {
      operator_id: operatorId,
      name: `Reliability ${operatorId}`,
      default_currency: 'EUR',
      allowed_currencies: ['EUR', 'USD'],
      bet_limits: { min: '1', max: '100000' },
      wallet_base_url: `${stack.walletBase}/wallet`,
      wallet_secret: walletSecret,
    });
    for (const symbol of [...provA, ...provB, ...(native ? [native] : [])]) {
      await admin('PUT', `/api/admin/v1/operators/${operatorId}/games/${symbol}`, { enabled: true });
    }
    const key = (
      await admin('POST', `/api/admin/v1/operators/${operatorId}/api-keys`, { label: 'reliability' })
    ).data;
    await stack.walletAdmin.setSecret(operatorId, walletSecret);
    operators.push({
      operatorId,
      key: key.api_key,
      keyId: key.key_id,
      walletSecret,
      slots: [
        ...provA.map((symbol) => ({ symbol, providerId: 'prov_a' as const })),
        ...provB.map((symbol) => ({ symbol, providerId: 'prov_b' as const })),
      ],
      native,
      currencies: ['EUR', 'USD'],
    });
  }
  const promotions = await configurePromotions(
    stack,
    admin,
    operators,
    [...provA, ...provB],
    tournamentSeconds,
  );
  return { operators, audited: [...operators], primary: operators[0]!, promotions };
}
