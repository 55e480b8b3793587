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
}

/**
 * Configures the platform through its admin API, as staff would: the prov_b family switch on, two
 * operators (wallet = the sandbox, EUR and USD), two prov_a and two prov_b titles each, a prov_c
 * title with operator-wallet transport for native history, an operator key each; and the
 * operators' callback secrets in the sandbox wallet.
 */
export async function configure(stack: ReliabilityStack): Promise<World> {
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
  return { operators, audited: [...operators], primary: operators[0]! };
}
