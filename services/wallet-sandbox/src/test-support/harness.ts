import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '@opi/db/testing';
import { minorToDecimalNumber } from '@opi/money';
import { HEADER_REQUEST_ID, HEADER_SIGNATURE, signedWalletHeaders } from '@opi/signing';
import { createWalletAdminClient, type WalletAdminClient } from '../admin-client.js';
import { createWalletApp, type WalletApp, type WalletDeps } from '../app.js';
import type { Operation } from '../callback.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const OPERATOR_ID = 'op_test';
export const SECRET = 'wsec_test_secret_0123456789abcdef';

export interface WalletHarness {
  db: TestDatabase;
  app: WalletApp;
  server: Server;
  /** Server root, e.g. http://127.0.0.1:12345. */
  base: string;
  /** The operator's wallet_base_url: `${base}/wallet`. */
  walletUrl: string;
  admin: WalletAdminClient;
  close(): Promise<void>;
}

/** A fresh database (cloned from the migrated template) and the wallet on a free loopback port. */
export async function startWallet(
  over: Partial<Omit<WalletDeps, 'pool'>> = {},
  db?: TestDatabase,
): Promise<WalletHarness> {
  const database = db ?? (await createTestDatabase());
  const app = createWalletApp({ pool: database.pool, adminToken: ADMIN_TOKEN, ...over });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const admin = createWalletAdminClient({ baseUrl: base, token: ADMIN_TOKEN });
  await admin.setSecret(OPERATOR_ID, SECRET);
  return {
    db: database,
    app,
    server,
    base,
    walletUrl: `${base}/wallet`,
    admin,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      if (!db) await database.drop();
    },
  };
}

export interface BodyInput {
  transaction_type: Operation;
  player_id: string;
  amount_minor: number;
  currency?: string;
  transaction_id?: string;
  round_id?: string;
  original_transaction_id?: string;
  operator_id?: string;
  [extra: string]: unknown;
}

/** A complete wallet callback body as the service would send it. */
export function callbackBody(input: BodyInput): Record<string, unknown> {
  const currency = input.currency ?? 'EUR';
  const { transaction_type, player_id, amount_minor, ...rest } = input;
  return {
    contract_version: '2026-09-01',
    operator_id: OPERATOR_ID,
    player_id,
    session_id: 'sess_1',
    game_symbol: 'vs20test',
    currency,
    request_id: randomUUID(),
    transaction_id: `tx_${randomUUID()}`,
    round_id: `round_${randomUUID()}`,
    transaction_type,
    action_type: transaction_type === 'balance' ? 'balance' : 'spin',
    amount: minorToDecimalNumber(amount_minor, currency),
    amount_minor,
    ...rest,
  };
}

export interface SendOptions {
  secret?: string;
  timestamp?: string;
  nonce?: string;
  /** Override the signature header (e.g. a bad one). */
  signature?: string;
  /** Sign these bytes but send `sendRaw` instead. */
  sendRaw?: string;
  /** Omit the signature headers. */
  unsigned?: boolean;
  signal?: AbortSignal;
}

export interface CallbackResult {
  status: number;
  text: string;
  json: any;
}

/**
 * Sends one signed callback: the body is serialised once; those exact bytes are signed and sent,
 * with a fresh timestamp and nonce unless given.
 */
export async function sendCallback(
  walletUrl: string,
  operation: string,
  body: Record<string, unknown> | string,
  opts: SendOptions = {},
): Promise<CallbackResult> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [HEADER_REQUEST_ID]: randomUUID(),
    ...(opts.unsigned ? {} : signedWalletHeaders(opts.secret ?? SECRET, raw, opts)),
  };
  if (!opts.unsigned && opts.signature !== undefined) headers[HEADER_SIGNATURE] = opts.signature;
  const res = await fetch(`${walletUrl}/${operation}`, {
    method: 'POST',
    headers,
    body: opts.sendRaw ?? raw,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** Sends the callback at the path named by its transaction_type. */
export function send(
  h: WalletHarness,
  body: Record<string, unknown>,
  opts: SendOptions = {},
): Promise<CallbackResult> {
  return sendCallback(h.walletUrl, String(body.transaction_type), body, opts);
}

let counter = 0;
/** A unique player id for one test. */
export function playerId(prefix = 'p'): string {
  counter++;
  return `${prefix}_${counter}_${randomUUID().slice(0, 8)}`;
}

/** Creates a player with an opening balance; returns its id. */
export async function newPlayer(
  h: WalletHarness,
  balanceMinor: number | bigint,
  currency = 'EUR',
): Promise<string> {
  const id = playerId();
  await h.admin.createPlayer({ operatorId: OPERATOR_ID, playerId: id, currency, balanceMinor });
  return id;
}

export async function balanceMinor(h: WalletHarness, player: string, currency = 'EUR'): Promise<bigint> {
  return BigInt((await h.admin.balance(OPERATOR_ID, player, currency)).balance_minor);
}
