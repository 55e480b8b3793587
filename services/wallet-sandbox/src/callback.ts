import { minorToDecimalNumber } from '@opi/money';
import { z } from 'zod';

export const CONTRACT_VERSION = '2026-09-01';
export const OPERATIONS = ['balance', 'debit', 'credit', 'cancel', 'rollback'] as const;
export type Operation = (typeof OPERATIONS)[number];
export type MoneyOperation = Exclude<Operation, 'balance'>;

export function isOperation(value: string): value is Operation {
  return (OPERATIONS as readonly string[]).includes(value);
}

const id = (max = 256) => z.string().min(1).max(max);

/**
 * The wallet callback request of the spec, validated strictly: amount_minor a non-negative safe
 * integer (JSON numbers beyond 2^53 cannot be read exactly), currency `^[A-Z]{3}$`, player_id 1 to
 * 64 characters without surrounding whitespace, original_transaction_id on rollback only. Unknown
 * extra fields are tolerated (forward compatibility) and ignored.
 */
export const CallbackRequestSchema = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    operator_id: id(128),
    player_id: id(64).refine((v) => v.trim() === v, 'no surrounding whitespace'),
    session_id: id(),
    game_symbol: id(128),
    currency: z.string().regex(/^[A-Z]{3}$/, 'a three-letter upper-case currency code'),
    request_id: id(),
    transaction_id: id(),
    round_id: id(),
    transaction_type: z.enum(OPERATIONS),
    action_type: id(128),
    amount: z.number().finite(),
    amount_minor: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    original_transaction_id: id().optional(),
  })
  .superRefine((body, ctx) => {
    const isRollback = body.transaction_type === 'rollback';
    if (isRollback && body.original_transaction_id === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['original_transaction_id'],
        message: 'a rollback carries original_transaction_id',
      });
    } else if (!isRollback && body.original_transaction_id !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['original_transaction_id'],
        message: 'original_transaction_id is present only on rollback',
      });
    } else if (isRollback && body.original_transaction_id === body.transaction_id) {
      ctx.addIssue({
        code: 'custom',
        path: ['original_transaction_id'],
        message: 'a rollback cannot reverse itself',
      });
    }
  });

export type CallbackRequest = z.infer<typeof CallbackRequestSchema>;

/** Whether the decimal `amount` is exactly `amount_minor` at the currency's exponent. */
export function amountMatches(body: Pick<CallbackRequest, 'amount' | 'amount_minor' | 'currency'>): boolean {
  return minorToDecimalNumber(body.amount_minor, body.currency) === body.amount;
}

/** One line per zod issue: `field: message`. */
export function describeIssues(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  return issues.map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`).join('; ');
}
