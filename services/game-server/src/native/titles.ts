/**
 * The runtime side of the three prov_c titles: how a bet starts a round, how a player action
 * becomes stages, and what the page may see. Pure functions over the round's stored secret
 * (rounds.outcome) and its stages (round_stages); the random source is passed in (the CSPRNG in
 * production). The mathematics lives in @opi/games (packages/games/src/native).
 */
import {
  applyRatio,
  cardName,
  cardRank,
  checkDiceTarget,
  checkMineCount,
  DICE_MAX_TARGET,
  DICE_MIN_TARGET,
  diceMultiplier,
  drawCard,
  drawMinesLayout,
  HILO_GUESSES,
  HILO_RANKS,
  HILO_RETURN,
  type HiloGuess,
  hiloGuess,
  hiloOptions,
  hiloWinningRanks,
  MAX_MINES,
  MIN_MINES,
  MINES_CELLS,
  MINES_COLUMNS,
  type MinesLayout,
  minesCanReveal,
  minesMultiplier,
  minesReveal,
  NativeMoveError,
  type Ratio,
  type Rng,
  type RoundStage,
  ratio,
  ratioToDecimal,
  ratioToFraction,
  rollDice,
} from '@opi/games';

export type NativeFamily = 'mines' | 'hilo' | 'dice';
export const NATIVE_FAMILY: Readonly<Record<string, NativeFamily>> = {
  cnmines: 'mines',
  cnhilo: 'hilo',
  cndice: 'dice',
};

/** A stage as written to round_stages (seq is assigned by the writer). */
export interface StageDraft {
  action: string;
  inputs: Record<string, unknown>;
  outcome: Record<string, unknown>;
  /** the running multiplier, exact; null where the stage has none */
  multiplier: Ratio | null;
}

/** A stage as read back. */
export type StageRow = RoundStage;

export interface BetParams {
  mines?: number;
  target?: number;
}

export interface StartedRound {
  /** stored in rounds.outcome; never shown while the round is open (the mines layout) */
  secret: Record<string, unknown>;
  bet: StageDraft;
  /** single-stage titles (dice): the win is known at the bet */
  winMinor: bigint | null;
}

export interface ActionResult {
  stages: StageDraft[];
  /** the cash-out offer after the action (the workflow's `stage` signal) */
  offerMinor: bigint;
  /** the round ends with this win (a cash-out, or 0 after a mine / a wrong guess) */
  finalWinMinor: bigint | null;
}

export interface PlayerAction {
  action: string;
  cell?: number;
  guess?: string;
}

const dec = (r: Ratio) => ratioToDecimal(r, 8);

// ── Mines ───────────────────────────────────────────────────────────────────────────────────────

interface MinesState {
  layout: MinesLayout;
  revealed: number[];
  multiplier: Ratio | null;
}

function minesState(secret: Record<string, unknown>, stages: StageRow[]): MinesState {
  const layout = { mineCount: Number(secret.mine_count), mines: (secret.mines as number[]) ?? [] };
  const revealed = stages
    .filter((s) => s.action === 'reveal' && s.outcome.mine === false)
    .map((s) => Number(s.inputs.cell));
  return {
    layout,
    revealed,
    multiplier: revealed.length > 0 ? minesMultiplier(layout.mineCount, revealed.length) : null,
  };
}

// ── Hi-Lo ───────────────────────────────────────────────────────────────────────────────────────

interface HiloState {
  card: number;
  multiplier: Ratio;
  guesses: number;
}

function hiloState(stages: StageRow[]): HiloState {
  let card = Number(stages[0]?.outcome.card);
  let multiplier = HILO_RETURN;
  let guesses = 0;
  for (const s of stages) {
    if (s.action !== 'guess' || s.outcome.correct !== true) continue;
    const c = hiloWinningRanks(cardRank(card), s.inputs.guess as HiloGuess);
    multiplier = ratio(multiplier.n * BigInt(HILO_RANKS), multiplier.d * BigInt(c));
    card = Number(s.outcome.card);
    guesses++;
  }
  return { card, multiplier, guesses };
}

const cardView = (card: number) => ({ card, rank: cardRank(card), name: cardName(card) });

// ── the titles ──────────────────────────────────────────────────────────────────────────────────

const intIn = (v: unknown, name: string): number => {
  const n = typeof v === 'string' && /^[0-9]{1,6}$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw new NativeMoveError(`${name} must be an integer`);
  return n;
};

/** Bet parameters of a title (422 on a bad one); defaults: 3 mines, target 50.00. */
export function parseBetParams(family: NativeFamily, body: Record<string, unknown>): BetParams {
  if (family === 'mines') {
    const mines = body.mines === undefined ? 3 : intIn(body.mines, 'mines');
    checkMineCount(mines);
    return { mines };
  }
  if (family === 'dice') {
    const target = body.target === undefined ? 5000 : intIn(body.target, 'target');
    checkDiceTarget(target);
    return { target };
  }
  return {};
}

/** Draws the round's outcome (mines layout, first card, dice roll) from `rng` at the bet. */
export function startRound(
  family: NativeFamily,
  rng: Rng,
  stakeMinor: bigint,
  params: BetParams,
): StartedRound {
  const stake = stakeMinor.toString();
  if (family === 'mines') {
    const layout = drawMinesLayout(rng, params.mines!);
    return {
      secret: { mine_count: layout.mineCount, mines: layout.mines },
      bet: {
        action: 'bet',
        inputs: { stake_minor: stake, mines: layout.mineCount },
        outcome: {},
        multiplier: null,
      },
      winMinor: null,
    };
  }
  if (family === 'hilo') {
    const card = drawCard(rng);
    return {
      secret: {},
      bet: { action: 'bet', inputs: { stake_minor: stake }, outcome: cardView(card), multiplier: null },
      winMinor: null,
    };
  }
  const roll = rollDice(rng, params.target!);
  const win = applyRatio(stakeMinor, roll.multiplier);
  return {
    secret: { target: roll.target, roll: roll.roll },
    bet: {
      action: 'roll',
      inputs: { stake_minor: stake, target: roll.target },
      outcome: {
        roll: roll.roll,
        win: roll.win,
        final: true,
        win_minor: win.toString(),
        multiplier_exact: ratioToFraction(roll.multiplier),
      },
      multiplier: roll.multiplier,
    },
    winMinor: win,
  };
}

/** One player action on an open round: the stages it adds, the new offer, and whether it ends the round. */
export function applyAction(
  family: NativeFamily,
  rng: Rng,
  round: { stakeMinor: bigint; secret: Record<string, unknown>; stages: StageRow[] },
  act: PlayerAction,
): ActionResult {
  const stake = round.stakeMinor;
  if (family === 'mines') {
    const st = minesState(round.secret, round.stages);
    if (act.action === 'cashout') {
      if (!st.multiplier) throw new NativeMoveError('reveal a cell before cashing out');
      return cashout(stake, st.multiplier, false);
    }
    if (act.action !== 'reveal') throw new NativeMoveError('Mines actions: reveal, cashout');
    const r = minesReveal(st.layout, st.revealed, intIn(act.cell, 'cell'));
    const move = { action: 'reveal', inputs: { cell: r.cell } };
    if (r.mine) return lost(move, { mine: true, reveals: r.reveals }, r.multiplier);
    return stepped(stake, move, { mine: false, reveals: r.reveals }, r.multiplier, r.final);
  }
  if (family === 'hilo') {
    const st = hiloState(round.stages);
    if (act.action === 'cashout') {
      if (st.guesses === 0) throw new NativeMoveError('guess right at least once before cashing out');
      return cashout(stake, st.multiplier, false);
    }
    if (act.action !== 'guess') throw new NativeMoveError('Hi-Lo actions: guess, cashout');
    if (typeof act.guess !== 'string' || !HILO_GUESSES.includes(act.guess as HiloGuess)) {
      throw new NativeMoveError('the guess must be higher, lower or same');
    }
    const r = hiloGuess(st.card, st.multiplier, act.guess as HiloGuess, drawCard(rng));
    const move = { action: 'guess', inputs: { guess: r.guess } };
    if (!r.correct) return lost(move, { ...cardView(r.card), correct: false }, r.multiplier);
    return stepped(stake, move, { ...cardView(r.card), correct: true }, r.multiplier, r.final);
  }
  throw new NativeMoveError('a dice round is settled at the roll');
}

type Move = Pick<StageDraft, 'action' | 'inputs'>;

/** A losing move (a mine, a wrong guess): its one stage ends the round with nothing won. */
function lost(move: Move, outcome: Record<string, unknown>, multiplier: Ratio): ActionResult {
  return {
    stages: [{ ...move, outcome: { ...outcome, final: true, win_minor: '0' }, multiplier }],
    offerMinor: 0n,
    finalWinMinor: 0n,
  };
}

/**
 * A winning move: its stage offers the cash-out at the new multiplier; the round's last step
 * (`final`: nothing left to reveal or guess) cashes out at once.
 */
function stepped(
  stake: bigint,
  move: Move,
  outcome: Record<string, unknown>,
  multiplier: Ratio,
  final: boolean,
): ActionResult {
  const offer = applyRatio(stake, multiplier);
  const stage: StageDraft = {
    ...move,
    outcome: { ...outcome, offer_minor: offer.toString(), multiplier_exact: ratioToFraction(multiplier) },
    multiplier,
  };
  if (!final) return { stages: [stage], offerMinor: offer, finalWinMinor: null };
  const end = cashout(stake, multiplier, true);
  return { ...end, stages: [stage, ...end.stages] };
}

function cashout(stake: bigint, multiplier: Ratio, auto: boolean): ActionResult {
  const win = applyRatio(stake, multiplier);
  return {
    stages: [
      {
        action: 'cashout',
        inputs: auto ? { auto: true } : {},
        outcome: { final: true, win_minor: win.toString(), multiplier_exact: ratioToFraction(multiplier) },
        multiplier,
      },
    ],
    offerMinor: win,
    finalWinMinor: win,
  };
}

/** The current cash-out offer of an open multi-stage round (0 before the first safe step). */
export function currentOffer(
  family: NativeFamily,
  round: { stakeMinor: bigint; secret: Record<string, unknown>; stages: StageRow[] },
): bigint {
  if (family === 'mines') {
    const m = minesState(round.secret, round.stages).multiplier;
    return m ? applyRatio(round.stakeMinor, m) : 0n;
  }
  if (family === 'hilo') {
    const st = hiloState(round.stages);
    return st.guesses > 0 ? applyRatio(round.stakeMinor, st.multiplier) : 0n;
  }
  return 0n;
}

/**
 * What the page sees of a round's game state. The mines layout only once the round is over;
 * hi-lo's offered guesses with their chances and multipliers while it is open.
 */
export function titleView(
  family: NativeFamily,
  round: { stakeMinor: bigint; secret: Record<string, unknown>; stages: StageRow[] },
  show: {
    /** the player may act */
    playing: boolean;
    /** the round has ended (the mines layout may be shown) */
    over: boolean;
    /** false while the wager is placed and for a refused wager: no card or roll is shown */
    showOutcome: boolean;
  },
): Record<string, unknown> {
  const { playing, over, showOutcome } = show;
  if (family === 'mines') {
    const st = minesState(round.secret, round.stages);
    const busted = round.stages.find((s) => s.action === 'reveal' && s.outcome.mine === true);
    const next =
      playing && minesCanReveal(st.layout.mineCount, st.revealed.length)
        ? minesMultiplier(st.layout.mineCount, st.revealed.length + 1)
        : null;
    return {
      mines: {
        cells: MINES_CELLS,
        columns: MINES_COLUMNS,
        mine_count: st.layout.mineCount,
        revealed: st.revealed,
        exploded: busted ? Number(busted.inputs.cell) : null,
        mines_at: over ? st.layout.mines : null,
        next_multiplier: next ? dec(next) : null,
        next_offer_minor: next ? applyRatio(round.stakeMinor, next).toString() : null,
      },
    };
  }
  if (family === 'hilo') {
    const st = hiloState(round.stages);
    const history = round.stages
      .filter((s) => s.action === 'bet' || s.action === 'guess')
      .map((s) => ({
        ...cardView(Number(s.outcome.card)),
        guess: (s.inputs.guess as string | undefined) ?? null,
        correct: (s.outcome.correct as boolean | undefined) ?? null,
      }));
    if (!showOutcome)
      return { hilo: { card: null, rank: null, name: null, guesses: 0, history: [], options: [] } };
    return {
      hilo: {
        ...cardView(st.card),
        guesses: st.guesses,
        history,
        options: playing
          ? hiloOptions(st.multiplier, cardRank(st.card)).map((o) => ({
              guess: o.guess,
              probability: dec(o.probability),
              multiplier: dec(o.multiplier),
              offer_minor: applyRatio(round.stakeMinor, o.multiplier).toString(),
            }))
          : [],
      },
    };
  }
  const roll = round.stages[0];
  const shown = roll && showOutcome;
  return {
    dice: {
      target: Number(roll?.inputs.target),
      roll: shown ? Number(roll.outcome.roll) : null,
      win: shown ? roll.outcome.win === true : null,
      multiplier: roll ? dec(diceMultiplier(Number(roll.inputs.target))) : null,
    },
  };
}

/** The fixed facts the page needs to offer a bet. */
export function titleFacts(family: NativeFamily): Record<string, unknown> {
  if (family === 'mines') {
    return {
      mines: {
        cells: MINES_CELLS,
        columns: MINES_COLUMNS,
        min: MIN_MINES,
        max: MAX_MINES,
        default: 3,
        first_multiplier: Object.fromEntries(
          Array.from({ length: MAX_MINES - MIN_MINES + 1 }, (_, i) => [
            String(i + MIN_MINES),
            dec(minesMultiplier(i + MIN_MINES, 1)),
          ]),
        ),
      },
    };
  }
  if (family === 'dice') {
    return {
      dice: {
        min_target: DICE_MIN_TARGET,
        max_target: DICE_MAX_TARGET,
        default_target: 5000,
        multiplier_numerator: 9800,
      },
    };
  }
  return { hilo: { ranks: HILO_RANKS } };
}
