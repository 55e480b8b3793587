import type { LedgerCheck, PlayerProtection } from './admin-routes.js';
import type { FaultConfig, FaultConfigInput, FaultCounters } from './faults.js';

/**
 * A tiny typed client of the sandbox's staff API (/admin), for tests, demos and benchmarks.
 * `baseUrl` is the server root (e.g. http://127.0.0.1:8090), not the /wallet address.
 */
export interface PlayerBalance {
  operator_id: string;
  player_id: string;
  currency: string;
  /** Integer minor units as a decimal string. */
  balance_minor: string;
  /** The decimal amount at the currency exponent, e.g. '1.50'. */
  balance: string;
}

export interface FaultState {
  faults: FaultConfig;
  counters: FaultCounters;
}

export class WalletAdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`wallet admin ${status} ${code}: ${message}`);
    this.name = 'WalletAdminError';
  }
}

export interface WalletAdminClient {
  setSecret(operatorId: string, secret: string): Promise<void>;
  createPlayer(input: {
    operatorId: string;
    playerId: string;
    currency: string;
    balanceMinor?: bigint | number | string;
  }): Promise<PlayerBalance & { created: boolean }>;
  deposit(input: {
    operatorId: string;
    playerId: string;
    currency: string;
    amountMinor: bigint | number | string;
    reference: string;
  }): Promise<PlayerBalance & { reference: string; replayed: boolean }>;
  balance(operatorId: string, playerId: string, currency: string): Promise<PlayerBalance>;
  setFaults(faults: FaultConfigInput): Promise<FaultState>;
  getFaults(): Promise<FaultState>;
  ledgerCheck(): Promise<LedgerCheck>;
  /**
   * Player protection: refuse the player's debits (every currency) with `refuseDebitsWith` as the
   * HTTP 400 `error` (e.g. `self_excluded`); `times` refuses only that many debits; null clears.
   */
  setProtection(input: {
    operatorId: string;
    playerId: string;
    refuseDebitsWith: string | null;
    times?: number;
  }): Promise<PlayerProtection>;
  getProtection(operatorId: string, playerId: string): Promise<PlayerProtection>;
}

export function createWalletAdminClient(options: { baseUrl: string; token: string }): WalletAdminClient {
  const root = options.baseUrl.replace(/\/+$/, '');
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(root + path, {
      method,
      headers: {
        'x-sandbox-admin-token': options.token,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new WalletAdminError(res.status, 'bad_response', text.slice(0, 200));
    }
    if (!res.ok) {
      const err = json as { error?: string; message?: string };
      throw new WalletAdminError(res.status, err.error ?? 'error', err.message ?? text);
    }
    return json as T;
  }
  const minor = (v: bigint | number | string) => String(v);
  const seg = encodeURIComponent;
  return {
    async setSecret(operatorId, secret) {
      await call('PUT', `/admin/operators/${seg(operatorId)}/secret`, { secret });
    },
    createPlayer(input) {
      return call('POST', '/admin/players', {
        operator_id: input.operatorId,
        player_id: input.playerId,
        currency: input.currency,
        ...(input.balanceMinor === undefined ? {} : { balance_minor: minor(input.balanceMinor) }),
      });
    },
    deposit(input) {
      return call('POST', '/admin/deposit', {
        operator_id: input.operatorId,
        player_id: input.playerId,
        currency: input.currency,
        amount_minor: minor(input.amountMinor),
        reference: input.reference,
      });
    },
    balance(operatorId, playerId, currency) {
      return call('GET', `/admin/players/${seg(operatorId)}/${seg(playerId)}/${seg(currency)}`);
    },
    setFaults(faults) {
      return call('PUT', '/admin/faults', faults);
    },
    getFaults() {
      return call('GET', '/admin/faults');
    },
    ledgerCheck() {
      return call('GET', '/admin/ledger-check');
    },
    setProtection(input) {
      return call('PUT', '/admin/protection', {
        operator_id: input.operatorId,
        player_id: input.playerId,
        refuse_debits_with: input.refuseDebitsWith,
        ...(input.times === undefined ? {} : { times: input.times }),
      });
    },
    getProtection(operatorId, playerId) {
      return call('GET', `/admin/protection/${seg(operatorId)}/${seg(playerId)}`);
    },
  };
}
