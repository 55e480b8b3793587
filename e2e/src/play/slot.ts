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
  win_minor?: string | null;
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
    let body = (await res.json().catch(() => ({}))) as SpinAnswer & { detail?: unknown };
    if (res.status() !== 200)
      throw new Error(
        `the spin answered ${res.status()}${typeof body.detail === 'string' ? ` "${body.detail}"` : ''}`,
      );
    const answered = body.status;
    if (body.status === 'pending' && body.round_id) {
      // The wallet was slow: the answer carries no outcome; the page follows the round
      // (GET /api/runtime/rounds/{round_id}) until it is over, and so does this check.
      const path = `/api/runtime/rounds/${body.round_id}`;
      const over = await page.waitForResponse(
        async (r) =>
          new URL(r.url()).pathname === path &&
          ((await r.json().catch(() => ({}))) as SpinAnswer).status !== 'pending',
        { timeout: timeoutMs },
      );
      body = { ...body, ...((await over.json()) as SpinAnswer) };
    }
    if (body.status !== 'completed')
      throw new Error(`the spin ended ${body.status}${body.error ? ` (${body.error})` : ''}`);
    if (!body.round_id || typeof body.bet_minor !== 'string' || typeof body.win_minor !== 'string')
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
      summary: `spin (${answered === 'pending' ? 'pending, then completed' : body.status})`,
    };
  },
};
