/**
 * The SQL that turns round_reconciliation's four triggers (migrations 11, 17 and 27) off or on:
 * benchmarks measure the write path with and without them.
 */
const TRIGGERS = [
  ['rounds', 'rounds_reconciliation_insert'],
  ['rounds', 'rounds_reconciliation_update'],
  ['wallet_transactions', 'wallet_transactions_reconciliation_insert'],
  ['wallet_transactions', 'wallet_transactions_reconciliation_update'],
] as const;

export function reconciliationTriggersSql(on: boolean): string {
  const verb = on ? 'ENABLE' : 'DISABLE';
  return TRIGGERS.map(([table, name]) => `ALTER TABLE ${table} ${verb} TRIGGER ${name};`).join('\n');
}
