import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import {
  HEADER_NONCE,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  sha256Hex,
  verifyWalletCallback,
} from '@opi/signing';
import type { Context } from 'koa';
import { amountMatches, CallbackRequestSchema, describeIssues, isOperation } from './callback.js';
import { errorBody, readRawBody, sendError, sendJsonText } from './http.js';
import type { Logger } from './logger.js';
import type { Answer, RequestMeta, WalletService } from './wallet-service.js';

export interface WalletRouteDeps {
  service: WalletService;
  logger: Logger;
  /** Allowed clock skew of x-pp-timestamp, seconds (default 300). */
  maxSkewSeconds: number;
  /** Current Unix seconds (tests move the clock). */
  nowSeconds?: () => number;
  /** Fault injection: whether a money callback with this action_type is refused (faults.ts). */
  refusesActionType?: (actionType: string) => boolean;
}

type Authenticated = { ok: true; operatorId: string; nonce: string; parsed: Record<string, unknown> };
type Rejected = { ok: false; reason: string };

const SIGNATURE_FAILURES: Record<string, string> = {
  missing_headers: 'missing x-pp-timestamp, x-pp-nonce or x-pp-signature',
  stale_timestamp: 'x-pp-timestamp is outside the allowed clock skew',
  invalid_nonce: 'x-pp-nonce is not 32 lower-case hex characters',
  invalid_signature: 'signature does not match',
};

// Verifying against a throwaway key for an unknown operator keeps the work (and timing) the same.
const DECOY_SECRET = randomBytes(32).toString('hex');

/**
 * Authenticates a callback over its raw bytes. The body is parsed only to learn which operator's
 * secret to use; nothing from it is trusted until the HMAC over the exact bytes received matches.
 * Then the nonce is claimed for single use.
 */
async function authenticate(
  deps: WalletRouteDeps,
  ctx: Context,
  raw: Buffer,
): Promise<Authenticated | Rejected> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return { ok: false, reason: 'body is not JSON, the operator cannot be determined' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, reason: 'body is not a JSON object' };
  }
  const body = parsed as Record<string, unknown>;
  const operatorId = body.operator_id;
  const secret = typeof operatorId === 'string' ? await deps.service.secretOf(operatorId) : undefined;
  const headers = {
    timestamp: ctx.get(HEADER_TIMESTAMP) || undefined,
    nonce: ctx.get(HEADER_NONCE) || undefined,
    signature: ctx.get(HEADER_SIGNATURE) || undefined,
  };
  const check = verifyWalletCallback(secret ?? DECOY_SECRET, headers, raw, {
    maxSkewSeconds: deps.maxSkewSeconds,
    ...(deps.nowSeconds ? { nowSeconds: deps.nowSeconds() } : {}),
  });
  if (typeof operatorId !== 'string' || secret === undefined)
    return { ok: false, reason: 'unknown operator' };
  if (!check.ok) return { ok: false, reason: SIGNATURE_FAILURES[check.reason] ?? check.reason };
  const nonce = headers.nonce!;
  if (!(await deps.service.claimNonce(operatorId, nonce))) return { ok: false, reason: 'nonce already used' };
  return { ok: true, operatorId, nonce, parsed: body };
}

/** POST /wallet/{balance,debit,credit,cancel,rollback}. */
export function walletRoutes(deps: WalletRouteDeps): Router {
  const router = new Router({ prefix: '/wallet' });
  router.post('/:operation', async (ctx) => {
    const operation = ctx.params.operation ?? '';
    if (!isOperation(operation)) {
      sendError(ctx, 404, 'not_found', `unknown wallet operation ${JSON.stringify(operation)}`);
      return;
    }
    const receivedAt = new Date();
    // Already read when the wire log is on (src/wire-log.ts).
    const raw = (ctx.state.rawBody as Buffer | undefined) ?? (await readRawBody(ctx));
    const auth = await authenticate(deps, ctx, raw);
    if (!auth.ok) {
      deps.logger.warn('callback rejected: invalid signature', {
        request_id: ctx.state.requestId,
        operation,
        reason: auth.reason,
      });
      sendError(ctx, 401, 'invalid_signature', auth.reason);
      return;
    }
    const meta: RequestMeta = {
      pathOperation: operation,
      operatorId: auth.operatorId,
      nonce: auth.nonce,
      requestHash: sha256Hex(raw),
      receivedAt,
    };
    const invalid = async (code: string, message: string) => {
      const answer: Answer = {
        status: 400,
        body: errorBody(code, message),
        outcome: 'invalid',
        errorCode: code,
      };
      await deps.service.recordRequest(meta, auth.parsed, answer);
      sendJsonText(ctx, answer.status, answer.body);
    };

    const parsed = CallbackRequestSchema.safeParse(auth.parsed);
    if (!parsed.success) return invalid('invalid_request', describeIssues(parsed.error.issues));
    const req = parsed.data;
    if (req.transaction_type !== operation) {
      return invalid(
        'invalid_request',
        `transaction_type ${req.transaction_type} does not match the path operation ${operation}`,
      );
    }
    if (!amountMatches(req)) {
      return invalid(
        'amount_mismatch',
        `amount ${req.amount} is not amount_minor ${req.amount_minor} at the ${req.currency} exponent`,
      );
    }
    if (req.transaction_type !== 'balance' && deps.refusesActionType?.(req.action_type)) {
      return invalid(
        'unsupported_action_type',
        `fault injection: this wallet does not accept action_type ${req.action_type}; nothing was applied`,
      );
    }

    let answer: Answer;
    try {
      answer = await deps.service.handle(req, meta);
    } catch (err) {
      // Nothing was committed; the caller retries with the same transaction_id.
      deps.logger.error('callback failed', {
        request_id: ctx.state.requestId,
        transaction_id: req.transaction_id,
        error: err instanceof Error ? { name: err.name, message: err.message } : String(err),
      });
      answer = {
        status: 500,
        body: errorBody(
          'internal_error',
          'internal error; nothing was applied, retry with the same transaction_id',
        ),
        outcome: 'error',
        errorCode: 'internal_error',
      };
      await deps.service.recordRequest(meta, req, answer).catch(() => {});
    }
    deps.logger.info('callback', {
      request_id: ctx.state.requestId,
      operator_id: req.operator_id,
      operation,
      transaction_id: req.transaction_id,
      round_id: req.round_id,
      outcome: answer.outcome,
      status: answer.status,
      error: answer.errorCode ?? undefined,
    });
    sendJsonText(ctx, answer.status, answer.body);
  });
  return router;
}
