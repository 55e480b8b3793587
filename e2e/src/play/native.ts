/**
 * Native titles (prov_c) at /native/<slug>/, by the hooks the page has: Mines (one mine, one
 * reveal, then a cash-out unless the reveal hit the mine), Hi-Lo (the likelier of higher and lower,
 * then a cash-out if right), Dice (a roll under the default target); any other title: bet, then
 * cash out as soon as it can. Every path ends in a settled round: a loss settles too.
 */
import type { Page } from '@playwright/test';
import { type Driver, gameState, hook, type PlayedRound, press, smallestStake, until } from './common.js';

const OVER = new Set(['completed', 'rejected', 'cancelled']);

async function waitState(page: Page, what: string, ok: (s: string) => boolean, timeoutMs: number) {
  return until(
    page,
    what,
    async () => {
      const s = (await gameState(page)) ?? '';
      if (s === 'error') throw new Error('the page shows an error');
      return ok(s) ? s : undefined;
    },
    timeoutMs,
  );
}

/** After a bet: the debit went through and the round is playing (or already over, e.g. dice). */
async function placed(page: Page, timeoutMs: number): Promise<string> {
  const s = await waitState(page, 'the wager to be placed', (s) => s === 'playing' || OVER.has(s), timeoutMs);
  if (s === 'rejected' || s === 'cancelled')
    throw new Error(`the round was ${s} (the wallet refused the debit?)`);
  return s;
}

async function cashOutIfOffered(page: Page, touch: boolean, timeoutMs: number) {
  if ((await gameState(page)) !== 'playing') return;
  await until(
    page,
    'the cash-out offer',
    async () => !(await hook(page, 'cashout-button').isDisabled()),
    timeoutMs,
  );
  await press(page, 'cashout-button', touch);
}

/** The probability shown on a Hi-Lo guess button (" ×1.21 · 80.0%"), 0 when not offered. */
async function guessChance(page: Page, id: string): Promise<number> {
  const b = hook(page, id);
  if (await b.isDisabled()) return 0;
  const m = /([\d.]+)%/.exec((await b.textContent()) ?? '');
  return m ? Number(m[1]) : 0;
}

export const nativeDriver: Driver = {
  async ready(page, timeoutMs) {
    const s = await waitState(
      page,
      'the native page to be ready',
      (s) => s !== 'loading' && s !== '',
      timeoutMs,
    );
    if (!OVER.has(s) && s !== 'ready')
      throw new Error(
        `an unfinished round of this player is open (state ${s}): finish it or use another player`,
      );
    await until(
      page,
      'the bet button',
      async () => !(await hook(page, 'play-button').isDisabled()),
      timeoutMs,
    );
  },

  async play(page, touch, timeoutMs): Promise<PlayedRound> {
    const stake = await smallestStake(page);
    let summary = 'bet';
    if (await hook(page, 'mine-cell-0').count()) {
      const counts = await hook(page, 'mines-select').evaluate((s) =>
        Array.from((s as HTMLSelectElement).options, (o) => Number(o.value)),
      );
      const fewest = Math.min(...counts);
      await hook(page, 'mines-select').selectOption(String(fewest));
      await press(page, 'play-button', touch);
      if ((await placed(page, timeoutMs)) === 'playing') {
        await press(page, 'mine-cell-12', touch);
        const cell = await until(
          page,
          'the revealed cell',
          async () => {
            const c = await hook(page, 'mine-cell-12').getAttribute('data-state');
            return c === 'safe' || c === 'exploded' ? c : undefined;
          },
          timeoutMs,
        );
        summary = `mines (${fewest}), ${cell === 'safe' ? 'a safe reveal, cashed out' : 'hit the mine'}`;
        if (cell === 'safe') await cashOutIfOffered(page, touch, timeoutMs);
      }
    } else if (await hook(page, 'hilo-higher').count()) {
      await press(page, 'play-button', touch);
      if ((await placed(page, timeoutMs)) === 'playing') {
        await until(
          page,
          'a guess to be offered',
          async () => (await guessChance(page, 'hilo-higher')) + (await guessChance(page, 'hilo-lower')) > 0,
          timeoutMs,
        );
        const guess =
          (await guessChance(page, 'hilo-higher')) >= (await guessChance(page, 'hilo-lower'))
            ? 'hilo-higher'
            : 'hilo-lower';
        await press(page, guess, touch);
        const s = await until(
          page,
          'the guess to be answered',
          async () => {
            const s = await gameState(page);
            if (s && OVER.has(s)) return s;
            if (s === 'playing' && !(await hook(page, 'cashout-button').isDisabled())) return s;
            return undefined;
          },
          timeoutMs,
        );
        summary = `hi-lo, ${guess.slice(5)} ${s === 'playing' ? 'right, cashed out' : 'wrong'}`;
        if (s === 'playing') await press(page, 'cashout-button', touch);
      }
    } else if (await hook(page, 'dice-target').count()) {
      const target = await hook(page, 'dice-target').inputValue();
      await press(page, 'play-button', touch);
      await placed(page, timeoutMs);
      summary = `dice, roll under ${target}`;
    } else {
      await press(page, 'play-button', touch);
      await placed(page, timeoutMs);
      await cashOutIfOffered(page, touch, timeoutMs);
    }
    const end = await waitState(page, 'the round to end', (s) => OVER.has(s), timeoutMs);
    if (end !== 'completed') throw new Error(`the round ended ${end}`);
    const roundId = await hook(page, 'game').first().getAttribute('data-round-id');
    const win = await hook(page, 'last-win').getAttribute('data-win-minor');
    if (!roundId || !win || !/^\d+$/.test(win)) throw new Error('the page shows no round id or last win');
    return { roundId, betMinor: stake, winMinor: BigInt(win), summary };
  },
};
