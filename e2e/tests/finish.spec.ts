/**
 * Last (the teardown of the start project, run after every other test, whatever their outcome):
 * reconciliation over the rounds created since the run started is balanced.
 */
import { test } from '@playwright/test';
import { describeApiError, operatorClient } from '../src/operator.js';
import { Recorder } from '../src/record.js';
import { loadSettings, target } from '../src/settings.js';

const settings = loadSettings();

test('reconciliation is balanced afterwards', async () => {
  const info = test.info();
  const rec: Recorder = new Recorder(info);
  const { baseUrl, apiKey } = target(settings);
  const api = operatorClient(baseUrl, apiKey);
  const from = settings.reconcileFrom;
  await rec.check('reconciliation_balanced', 'GET /api/operator/v1/reconciliation', async () => {
    // Settlements still under way (a credit after the page showed the win) get a little time.
    const deadline = Date.now() + settings.roundTimeoutMs;
    for (;;) {
      const r = (
        await api.getReconciliation(from ? { from } : {}).catch((err: unknown) => {
          throw new Error(`reconciliation read failed: ${describeApiError(err)}`);
        })
      ).data;
      const totals = r.currencies
        .map(
          (c) =>
            `${c.currency}: ${c.rounds} rounds, ${c.transactions} transactions, wallet ${c.wallet_delta_minor}, game ${c.game_delta_minor}, difference ${c.difference_minor}, pending ${c.pending_transactions}${c.balanced ? '' : ' (not balanced)'}`,
        )
        .join('; ');
      const window = `from ${r.from ?? 'the beginning'} to ${r.to}`;
      if (r.balanced) return { value: undefined, detail: `balanced ${window}: ${totals || 'no rounds'}` };
      if (Date.now() > deadline) {
        const items = r.items
          .slice(0, 5)
          .map(
            (i) =>
              `${i.round_id} (${i.round_status}, difference ${i.difference_minor}, pending ${i.pending_transactions})`,
          )
          .join(', ');
        throw new Error(`not balanced ${window}: ${totals}${items ? `; rounds: ${items}` : ''}`);
      }
      await new Promise((res) => setTimeout(res, 1000));
    }
  });
});
