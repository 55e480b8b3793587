import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { STANDARD_PAYLINES } from '@opi/games';
import { loadReplayAssets } from './assets.js';
import type { ReplayRound } from './data.js';
import { jsonForHtml, renderReplayError, renderReplayPage } from './render.js';

// The page renderer on its own, for what the played rounds of replay.test.ts and
// replay.browser.test.ts do not reach: the free-round and jackpot markers, a ways title, a bought
// feature (no base grid), a settling round, escaping of stored text, the JSON data block.
const assets = loadReplayAssets();

function round(over: Partial<ReplayRound>): ReplayRound {
  return {
    round_id: 'r_00000000-0000-4000-8000-000000000001',
    symbol: 'vs20emberfox',
    title: 'Ember Fox Fortunes',
    provider_id: 'prov_a',
    family: 'slot',
    currency: 'EUR',
    status: 'completed',
    stuck: false,
    bet_minor: '100',
    win_minor: '0',
    jackpot_win_minor: '0',
    free_round: null,
    created_at: '2026-11-26T10:00:00.000Z',
    settled_at: '2026-11-26T10:00:01.000Z',
    wager_stands: true,
    revoked_at: null,
    outcome: null,
    stages: [],
    wallet: [{ type: 'debit', status: 'success', amount_minor: '100', wallet_balance: '99.00' }],
    balance_before_minor: '10000',
    balance_after_minor: '9900',
    fairness: null,
    crash: null,
    ...over,
  };
}

const grid = (s: number) => Array.from({ length: 5 }, () => [s, s, s]);
const attrs = (html: string, testid: string, name: string): string[] =>
  [...html.matchAll(new RegExp(`data-testid="${testid}"[^>]*?${name}="([^"]*)"`, 'g'))].map((m) => m[1]!);

describe('replay page rendering', () => {
  test('a free round and a jackpot are marked; the free round shows its stake', () => {
    const html = renderReplayPage(
      round({
        bet_minor: '0',
        win_minor: '500',
        jackpot_win_minor: '12345',
        free_round: { campaign_id: 'camp_1', bet_minor: '100' },
        wallet: [{ type: 'credit', status: 'success', amount_minor: '12845', wallet_balance: '228.45' }],
        outcome: { grid: grid(6), lineWins: [], scatterWinMinor: '0', freeSpins: [], totalWinMinor: '500' },
      }),
      assets,
    );
    assert.match(html, /data-testid="replay-free-round" data-campaign="camp_1"/);
    assert.deepEqual(attrs(html, 'replay-jackpot', 'data-win-minor'), ['12345']);
    assert.match(html, /Jackpot EUR 123\.45/);
    assert.deepEqual(attrs(html, 'replay-stake', 'data-minor'), ['100']);
    assert.match(html, /EUR 1\.00 \(free round\)/);
    assert.equal(attrs(html, 'replay-cell', 'data-symbol').length, 15);
  });

  test('line wins: a polyline per line through its rows; a ways title marks the paying reels', () => {
    const lineGrid = grid(6);
    const html = renderReplayPage(
      round({
        outcome: {
          grid: lineGrid,
          lineWins: [{ line: 3, symbol: 6, count: 3, ways: 1, winMinor: '40' }],
          scatterWinMinor: '0',
          freeSpins: [],
          totalWinMinor: '40',
        },
      }),
      assets,
    );
    const rows = STANDARD_PAYLINES[3]!;
    assert.match(
      html,
      new RegExp(
        `<polyline class="payline p0" points="${rows.map((r, i) => `${i * 100 + 50},${r * 100 + 50}`).join(' ')}" data-line="3">`,
      ),
    );
    const marked = [
      ...html.matchAll(/data-reel="(\d)" data-row="(\d)" data-symbol="L1" data-win="true"/g),
    ].map((m) => `${m[1]}:${m[2]}`);
    assert.deepEqual(marked.sort(), [0, 1, 2].map((reel) => `${reel}:${rows[reel]}`).sort());

    // vs243copperkiln: ways. L2 on reels 1-3 (a wild on reel 2 counts), nothing on reel 4.
    const ways = [
      [7, 8, 9],
      [0, 2, 3],
      [7, 7, 4],
      [5, 6, 8],
      [9, 9, 9],
    ];
    const w = renderReplayPage(
      round({
        symbol: 'vs243copperkiln',
        outcome: {
          grid: ways,
          lineWins: [{ line: -1, symbol: 7, count: 3, ways: 2, winMinor: '10' }],
          scatterWinMinor: '0',
          freeSpins: [],
          totalWinMinor: '10',
        },
      }),
      assets,
    );
    assert.ok(!w.includes('<polyline'), 'no line drawn for a ways win');
    const waysMarked = [
      ...w.matchAll(/data-reel="(\d)" data-row="(\d)" data-symbol="[A-Z0-9]+" data-win="true"/g),
    ].map((m) => `${m[1]}:${m[2]}`);
    assert.deepEqual(waysMarked.sort(), ['0:0', '1:0', '2:0', '2:1']);
    assert.match(w, /3 reels × L2, 2 ways/);
  });

  test('a bought feature has no base grid: its free spins are the round', () => {
    const html = renderReplayPage(
      round({
        outcome: {
          grid: [],
          lineWins: [],
          scatterWinMinor: '0',
          freeSpins: [
            { grid: grid(2), winMinor: '300' },
            { grid: grid(3), winMinor: '0' },
          ],
          totalWinMinor: '300',
        },
      }),
      assets,
    );
    assert.ok(!html.includes('data-testid="replay-reels"'));
    assert.deepEqual(
      attrs(html, 'replay-free-spin', 'data-grid'),
      [JSON.stringify(grid(2)), JSON.stringify(grid(3))].map((g) => g.replaceAll('"', '&#34;')),
    );
    assert.match(html, /Free spins \(2\)/);
  });

  test('a settling round is pending; stored text is escaped; the data block cannot close its script', () => {
    const html = renderReplayPage(
      round({ status: 'settling', title: 'Fox <script>alert(1)</script> & "Co"' }),
      assets,
    );
    assert.match(html, /data-testid="replay-status" data-status="settling"/);
    assert.match(html, /pending/);
    assert.ok(!html.includes('<script>alert'), 'the title is escaped');
    assert.match(html, /Fox &#60;script&#62;alert\(1\)&#60;\/script&#62; &#38; &#34;Co&#34;/);
    const block = jsonForHtml({ client_seed: '</script><img src=x onerror=alert(1)>&\u2028' });
    assert.ok(!/[<>&\u2028]/.test(block), block);
    assert.deepEqual(JSON.parse(block), { client_seed: '</script><img src=x onerror=alert(1)>&\u2028' });
  });

  test('the error pages carry no script and no data', () => {
    for (const reason of ['not_found', 'expired'] as const) {
      const html = renderReplayError(reason, assets);
      assert.ok(!html.includes('<script'));
      assert.match(html, new RegExp(`data-reason="${reason}"`));
    }
  });
});
