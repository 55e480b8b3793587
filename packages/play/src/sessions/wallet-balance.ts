import { randomUUID } from 'node:crypto';
import { CONTRACT_VERSION } from '@opi/contract';
import { badGateway, conflict } from '@opi/service-kit/http/named-errors';
import { sendWalletCallback, type WalletOutcome } from '@opi/wallet';
import type { PlayDeps } from '../deps.js';
import type { RuntimeSession } from './runtime-session.js';

/**
 * A balance read through the operator's wallet (`POST {wallet_base_url}/balance`, signed). It moves
 * no money and is not journalled. A balance read has no round: `round_id` names the session
 * (`balance:<session_id>`) and `transaction_id` is fresh per read.
 */
export async function readWalletBalance(
  deps: PlayDeps & { walletTimeoutMs?: number },
  session: RuntimeSession,
): Promise<{ balance: string; currency: string }> {
  const { rows } = await deps.pool.query<{
    wallet_base_url: string | null;
    wallet_secret_enc: string | null;
  }>(`SELECT wallet_base_url, wallet_secret_enc FROM operators WHERE operator_id = $1`, [
    session.operator_id,
  ]);
  const op = rows[0];
  if (!op?.wallet_base_url || !op.wallet_secret_enc) throw conflict('The operator wallet is not configured');
  const requestId = randomUUID();
  const body = JSON.stringify({
    contract_version: CONTRACT_VERSION,
    operator_id: session.operator_id,
    player_id: session.external_player_id,
    session_id: session.session_id,
    game_symbol: session.symbol,
    currency: session.currency,
    request_id: requestId,
    transaction_id: `balance:${requestId}`,
    round_id: `balance:${session.session_id}`,
    transaction_type: 'balance',
    action_type: 'balance',
    amount: 0,
    amount_minor: 0,
  });
  const outcome: WalletOutcome = await sendWalletCallback({
    baseUrl: op.wallet_base_url,
    operation: 'balance',
    secret: deps.box.decrypt(op.wallet_secret_enc),
    body,
    requestId,
    operatorId: session.operator_id,
    timeoutMs: deps.walletTimeoutMs ?? 5_000,
    network: deps.walletNetwork ?? { allowPrivate: !deps.isProduction },
  });
  if (outcome.kind === 'success') return { balance: outcome.balance, currency: session.currency };
  if (outcome.kind === 'rejected') throw conflict(`The wallet refused the balance read: ${outcome.error}`);
  throw badGateway('The operator wallet is unavailable');
}
