/**
 * Slots (prov_a, prov_b) at /gs2c/html5Game.do: one base-game spin with the smallest stake. The
 * round id and the amounts come from the page's own spin answer.
 */
import type { Page } from '@playwright/test';
import { type Driver, gameState, hook, type PlayedRound, press, smallestStake, until } from './common.js';

interface SpinAnswer {
  status: string;
  round_id?: string;
  bet_minor?: string;
  win_minor?: string;
  error?: string;
}

export const slotDriver: Driver = {
  async ready(page, timeoutMs) {
    await until(
      page,
      'the slot page to be ready',
      async () => (await gameState(page)) === 'ready',
      timeoutMs,
    );
    await until(
      page,
      'the spin button to be enabled',
      async () => !(await hook(page, 'spin-button').isDisabled()),
      timeoutMs,
    );
  },

  async play(page: Page, touch: boolean, timeoutMs: number): Promise<PlayedRound> {
    const stake = await smallestStake(page);
    const answer = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/runtime/spin' && r.request().method() === 'POST',
      { timeout: timeoutMs },
    );
    await press(page, 'spin-button', touch);
    const res = await answer;
    const body = (await res.json().catch(() => ({}))) as SpinAnswer & { detail?: unknown };
    if (res.status() !== 200)
      throw new Error(
        `the spin answered ${res.status()}${typeof body.detail === 'string' ? ` "${body.detail}"` : ''}`,
      );
    if (body.status !== 'completed' && body.status !== 'pending')
      throw new Error(`the spin ended ${body.status}${body.error ? ` (${body.error})` : ''}`);
    if (!body.round_id || body.bet_minor === undefined || body.win_minor === undefined)
      throw new Error(`the spin answer has no round_id, bet_minor or win_minor: ${JSON.stringify(body)}`);
    if (BigInt(body.bet_minor) !== stake)
      throw new Error(`the spin was played for ${body.bet_minor}, the stake chosen was ${stake}`);
    await until(
      page,
      'the spin button to be enabled again',
      async () => !(await hook(page, 'spin-button').isDisabled()),
      timeoutMs,
    );
    await until(
      page,
      `last win ${body.win_minor}`,
      async () => (await hook(page, 'last-win').getAttribute('data-win-minor')) === body.win_minor,
      timeoutMs,
    );
    return {
      roundId: body.round_id,
      betMinor: BigInt(body.bet_minor),
      winMinor: BigInt(body.win_minor),
      summary: `spin (${body.status})`,
    };
  },
};
