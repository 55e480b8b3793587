/**
 * Crash titles (prov_d) at /games/<slug>/: a bet with the smallest stake and no automatic
 * cash-out, then the cash-out as soon as it opens (the multiplier's state `cashed-out`, or `returned`
 * for a cash-out that returns no more than the stake: no celebration, issue 26). A round that crashes first is a settled loss;
 * a cash-out that arrives after the crash is answered with the crashed round (not an error).
 */
import type { Page } from '@playwright/test';
import { type Driver, gameState, hook, type PlayedRound, press, smallestStake, until } from './common.js';

const multiplierState = (page: Page) => hook(page, 'multiplier').getAttribute('data-state');

export const crashDriver: Driver = {
  async ready(page, timeoutMs) {
    await until(
      page,
      'the crash page to be ready',
      async () => (await gameState(page)) === 'ready',
      timeoutMs,
    );
    await until(
      page,
      'the bet button',
      async () => !(await hook(page, 'bet-button').isDisabled()),
      timeoutMs,
    );
  },

  async play(page, touch, timeoutMs): Promise<PlayedRound> {
    const stake = await smallestStake(page);
    await hook(page, 'auto-cashout').fill('');
    // The round id shown before the bet (a resumed player's last round), to wait for a new one.
    const before = ((await hook(page, 'round-id').textContent()) ?? '').trim();
    await press(page, 'bet-button', touch);
    const started = await until(
      page,
      'the round to start',
      async () => {
        if ((await gameState(page)) === 'error') throw new Error('the page shows an error');
        const m = await multiplierState(page);
        return m === 'running' || m === 'crashed' || m === 'cashed-out' || m === 'returned' ? m : undefined;
      },
      timeoutMs,
    );
    if (started === 'running') {
      const open = await until(
        page,
        'the cash-out to open',
        async () => {
          if ((await multiplierState(page)) !== 'running') return 'ended';
          return (await hook(page, 'cashout-button').isDisabled()) ? undefined : 'open';
        },
        timeoutMs,
      );
      if (open === 'open') await press(page, 'cashout-button', touch).catch(() => {});
    }
    const end = await until(
      page,
      'the round to end',
      async () => {
        const m = await multiplierState(page);
        return m === 'crashed' || m === 'cashed-out' || m === 'returned' ? m : undefined;
      },
      timeoutMs,
    );
    const roundId = await until(
      page,
      'the round id',
      async () => {
        const t = ((await hook(page, 'round-id').textContent()) ?? '').trim();
        return t && t !== '—' && t !== before ? t : undefined;
      },
      timeoutMs,
    );
    const win = await hook(page, 'last-win').getAttribute('data-win-minor');
    if (!win || !/^\d+$/.test(win)) throw new Error('the page shows no last win');
    const at = ((await hook(page, 'multiplier').textContent()) ?? '').trim();
    return {
      roundId,
      betMinor: stake,
      winMinor: BigInt(win),
      summary: end === 'crashed' ? `crashed at ${at}` : `cashed out at ${at}`,
    };
  },
};
