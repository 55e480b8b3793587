import {
  CRASH_CAP_CENTS,
  centsAt,
  crashMs,
  formatMultiplier,
  MINES_CELLS,
  MINES_COLUMNS,
  msToReach,
  SLOT_SYMBOLS,
  SYMBOL_NAMES,
  slotConfig,
  symbolArtPath,
  symbolLabel,
} from '@opi/games';
import { formatSessionMinor } from '@opi/play/sessions/display';
import { pageHead } from '../player-pages/page-shell.js';
import type { ReplayAssets } from './assets.js';
import type { ReplayRound, ReplayStage } from './data.js';
import { escapeHtml as esc } from './headers.js';

/*
 * The replay page, rendered on the server from the stored round: plain markup with escaped text
 * and attributes (no inline script or style; SVG with presentation classes only), so it reads the
 * same with or without the script. The script (static/replay.js) only runs the crash fairness
 * verification in the browser and marks slot cells whose art loaded.
 */

const attr = (name: string, value: string | number | boolean | null | undefined): string =>
  value === null || value === undefined ? '' : ` ${name}="${esc(String(value))}"`;

/** Where an amount is shown: the round's currency and its session's display unit (issue 39). */
type MoneyIn = { currency: string; display_unit?: string | null };

function money(minor: string | bigint | null, where: MoneyIn): string {
  if (minor === null) return 'not recorded';
  try {
    // Exact digit work in the session's unit (`mBTC 1.00`, `EUR 1.50`): docs/currencies.md.
    return formatSessionMinor(BigInt(minor), where);
  } catch {
    return `${minor} (minor units)`;
  }
}

const STATUS_TEXT: Record<ReplayRound['status'], string | null> = {
  completed: null,
  open: 'This round is still in play (pending): what is shown is the round so far.',
  settling:
    'This round is pending: its result is final but the casino wallet has not yet confirmed the payment.',
  cancelled: 'This round was cancelled: its stake was returned to the player.',
  rejected: 'This round was rejected: the wallet refused the bet, so nothing was staked, played or paid.',
  rolled_back: 'This round was rolled back: its stake was refunded and the round voided.',
};

/**
 * Whether the round's result may be shown: once its wager stands (issue 34, one rule for every
 * read: @opi/play/settlement/wager-stands), never for a refused bet. Until then the page shows no
 * reels, stages, crash point or jackpot, as the game pages never show an outcome before the debit.
 */
function played(r: ReplayRound): boolean {
  if (r.status === 'rejected') return false;
  return r.wager_stands;
}

/** The page's document up to `</head>` (the player pages' one shell), its script only when it has a round to show. */
function head(title: string, assets: ReplayAssets, withScript: boolean): string {
  return pageHead(title, 'en', { css: assets.css, ...(withScript ? { js: assets.js } : {}) });
}

// ── slots ───────────────────────────────────────────────────────────────────────────────────────

interface SlotOutcome {
  grid: number[][];
  lineWins: { line: number; symbol: number; count: number; ways: number; winMinor: string }[];
  scatterWinMinor: string;
  freeSpins: { grid: number[][]; winMinor: string }[];
  totalWinMinor: string;
}

const isGrid = (g: unknown): g is number[][] =>
  Array.isArray(g) &&
  g.length === 5 &&
  g.every((reel) => Array.isArray(reel) && reel.length === 3 && reel.every((s) => Number.isInteger(s)));

function slotOutcome(raw: unknown): SlotOutcome | null {
  if (!raw || typeof raw !== 'object') return null;
  const o = raw as Record<string, unknown>;
  const grid = isGrid(o.grid) ? o.grid : [];
  const lineWins = Array.isArray(o.lineWins) ? (o.lineWins as SlotOutcome['lineWins']) : [];
  const freeSpins = Array.isArray(o.freeSpins)
    ? (o.freeSpins as SlotOutcome['freeSpins']).filter((f) => isGrid(f?.grid))
    : [];
  return {
    grid,
    lineWins,
    scatterWinMinor: String(o.scatterWinMinor ?? '0'),
    freeSpins,
    totalWinMinor: String(o.totalWinMinor ?? '0'),
  };
}

const symbolName = (id: number): string => SYMBOL_NAMES[id] ?? `S${id}`;

function reelsMarkup(
  gameSymbol: string,
  grid: number[][],
  winning: Set<string>,
  testid: string,
  extra = '',
): string {
  const cells: string[] = [];
  // Row-major, so a 5-column CSS grid lays the reels out as they landed (grid[reel][row]).
  for (let row = 0; row < 3; row++) {
    for (let reel = 0; reel < 5; reel++) {
      const name = symbolName(grid[reel]![row]!);
      const win = winning.has(`${reel}:${row}`);
      cells.push(
        `<div class="cell${win ? ' win' : ''}" data-testid="replay-cell"${attr('data-reel', reel)}${attr('data-row', row)}${attr('data-symbol', name)}${win ? ' data-win="true"' : ''}>` +
          `<img src="${esc(symbolArtPath(gameSymbol, name))}" alt="${esc(name)}"${attr('title', symbolLabel(gameSymbol, name))} width="64" height="64">` +
          `<span class="name" aria-hidden="true">${esc(name)}</span></div>`,
      );
    }
  }
  return `<div class="reels" data-testid="${esc(testid)}"${extra} role="img" aria-label="Reels">${cells.join('')}</div>`;
}

function renderSlot(r: ReplayRound): string {
  const o = slotOutcome(r.outcome);
  if (!o)
    return '<p class="note" data-testid="replay-no-outcome">No outcome was recorded for this round.</p>';
  const config = SLOT_SYMBOLS.includes(r.symbol) ? slotConfig(r.symbol) : null;
  const paylines = config?.paylines ?? [];
  const ways = config?.ways ?? false;
  const parts: string[] = [
    '<section class="slot" data-testid="replay-slot" aria-label="Reels as they landed">',
  ];
  if (o.grid.length > 0) {
    // The cells each win covers: a line's first `count` reels; a ways win's symbol (or wild) on its reels.
    const winning = new Set<string>();
    const lines: string[] = [];
    o.lineWins.forEach((w, i) => {
      if (w.line >= 0 && paylines[w.line]) {
        const rows = paylines[w.line]!;
        for (let reel = 0; reel < w.count && reel < 5; reel++) winning.add(`${reel}:${rows[reel]}`);
        const points = rows.map((row, reel) => `${reel * 100 + 50},${row * 100 + 50}`).join(' ');
        lines.push(
          `<polyline class="payline p${i % 6}" points="${points}"${attr('data-line', w.line)}></polyline>`,
        );
      } else if (ways) {
        for (let reel = 0; reel < w.count && reel < 5; reel++) {
          for (let row = 0; row < 3; row++) {
            const s = o.grid[reel]![row]!;
            if (s === w.symbol || s === 0) winning.add(`${reel}:${row}`);
          }
        }
      }
    });
    parts.push(
      `<div class="reels-wrap">${reelsMarkup(r.symbol, o.grid, winning, 'replay-reels', attr('data-grid', JSON.stringify(o.grid)))}` +
        `<svg class="lines" data-testid="replay-lines" viewBox="0 0 500 300" preserveAspectRatio="none" aria-hidden="true" focusable="false">${lines.join('')}</svg></div>`,
    );
  } else {
    parts.push('<p class="note">A bought feature: the free spins below are the round.</p>');
  }
  const wins: string[] = o.lineWins.map((w) => {
    const what =
      w.line >= 0
        ? `Line ${w.line + 1}: ${w.count} × ${symbolName(w.symbol)}`
        : `${w.count} reels × ${symbolName(w.symbol)}, ${w.ways} way${w.ways === 1 ? '' : 's'}`;
    return `<li data-testid="replay-line-win"${attr('data-line', w.line)}${attr('data-symbol', symbolName(w.symbol))}${attr('data-count', w.count)}${attr('data-win-minor', w.winMinor)}>${esc(what)} <strong>${esc(money(w.winMinor, r))}</strong></li>`;
  });
  if (o.scatterWinMinor !== '0') {
    wins.push(
      `<li data-testid="replay-scatter-win"${attr('data-win-minor', o.scatterWinMinor)}>Scatter <strong>${esc(money(o.scatterWinMinor, r))}</strong></li>`,
    );
  }
  parts.push(
    wins.length > 0
      ? `<h2>Paying lines</h2><ol class="wins" data-testid="replay-line-wins">${wins.join('')}</ol>`
      : '<p class="note" data-testid="replay-line-wins" data-empty="true">No paying line.</p>',
  );
  if (o.freeSpins.length > 0) {
    parts.push(
      `<h2>Free spins (${o.freeSpins.length})</h2><ol class="free-spins" data-testid="replay-free-spins">`,
    );
    o.freeSpins.forEach((f, i) => {
      parts.push(
        `<li${attr('data-index', i)}${attr('data-win-minor', f.winMinor)}>${reelsMarkup(r.symbol, f.grid, new Set(), 'replay-free-spin', attr('data-grid', JSON.stringify(f.grid)))}<p>Free spin ${i + 1}: ${esc(money(f.winMinor, r))}</p></li>`,
      );
    });
    parts.push('</ol>');
  }
  parts.push('</section>');
  return parts.join('');
}

// ── native ──────────────────────────────────────────────────────────────────────────────────────

function stageText(family: string, s: ReplayStage, currency: MoneyIn): string {
  const i = s.inputs;
  const o = s.outcome;
  switch (s.action) {
    case 'bet':
      if (family === 'mines')
        return `Bet ${money(String(i.stake_minor ?? '0'), currency)} with ${i.mines} mines`;
      if (family === 'hilo')
        return `Bet ${money(String(i.stake_minor ?? '0'), currency)}; first card ${o.name ?? '?'}`;
      if (family === 'crash') return `Bet ${money(String(i.stake_minor ?? '0'), currency)}`;
      return `Bet ${money(String(i.stake_minor ?? '0'), currency)}`;
    case 'reveal':
      return o.mine === true
        ? `Tile ${Number(i.cell) + 1}: a mine`
        : `Tile ${Number(i.cell) + 1}: safe, ${mult(s.multiplier)}x`;
    case 'guess':
      return `Guess ${i.guess}: ${o.name ?? '?'} — ${o.correct === true ? `right, ${mult(s.multiplier)}x` : 'wrong'}`;
    case 'roll':
      return `Roll ${formatHundredths(Number(o.roll))} under ${formatHundredths(Number(i.target))}: ${o.win === true ? `pays ${mult(s.multiplier)}x` : 'no return'}`;
    case 'cashout':
      return `${i.auto === true ? 'Automatic cash-out' : 'Cash-out'}${s.multiplier ? ` at ${mult(s.multiplier)}x` : ''}${o.win_minor !== undefined ? `: ${money(String(o.win_minor), currency)}` : ''}`;
    case 'abandon':
      return `Ended by the abandon rule (${o.rule ?? '?'}): ${money(String(o.win_minor ?? '0'), currency)}`;
    case 'cancel':
      return 'Cancelled';
    case 'rejected':
    case 'reject':
      return 'The wallet refused the bet';
    case 'start':
      return 'The multiplier started';
    case 'crash':
      return `Crashed${s.multiplier ? ` at ${mult(s.multiplier)}x` : ''}`;
    default:
      return s.action;
  }
}

/** '1.10000000' -> '1.10', '2.10166666' -> '2.10166666' (stored to 8 decimals; at least 2 shown). */
const mult = (m: string | null): string => (m === null ? '' : m.replace(/(\.\d\d\d*?)0+$/, '$1'));

const formatHundredths = (n: number): string =>
  Number.isFinite(n) ? `${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}` : '?';

function stageList(r: ReplayRound): string {
  const items = r.stages.map(
    (s) =>
      `<li data-testid="replay-stage"${attr('data-seq', s.seq)}${attr('data-action', s.action)}${attr('data-multiplier', s.multiplier)}>${esc(stageText(r.family, s, r))}</li>`,
  );
  return `<h2>Stages</h2><ol class="stages" data-testid="replay-stages">${items.join('')}</ol>`;
}

function renderMines(r: ReplayRound): string {
  const bet = r.stages.find((s) => s.action === 'bet');
  const picks = r.stages.filter((s) => s.action === 'reveal');
  const order = new Map<number, { n: number; mine: boolean }>();
  picks.forEach((s, n) => {
    order.set(Number(s.inputs.cell), { n: n + 1, mine: s.outcome.mine === true });
  });
  // The layout only once the round is over (as the game page: never while it could go on).
  const over = ['completed', 'cancelled', 'rolled_back'].includes(r.status);
  const secret = (r.outcome ?? {}) as { mines?: unknown };
  const mines = over && Array.isArray(secret.mines) ? new Set(secret.mines.map(Number)) : new Set<number>();
  const cells: string[] = [];
  for (let c = 0; c < MINES_CELLS; c++) {
    const pick = order.get(c);
    const state = pick ? (pick.mine ? 'mine-hit' : 'safe') : mines.has(c) ? 'mine' : 'hidden';
    const label = pick
      ? pick.mine
        ? `mine (pick ${pick.n})`
        : `safe (pick ${pick.n})`
      : mines.has(c)
        ? 'mine'
        : '';
    cells.push(
      `<div class="tile ${state}" data-testid="replay-mine-cell"${attr('data-cell', c)}${attr('data-state', state)}${attr('data-pick', pick?.n)} role="gridcell" aria-label="${esc(`Tile ${c + 1}${label ? `: ${label}` : ''}`)}">${pick ? esc(String(pick.n)) : mines.has(c) ? '&#10040;' : ''}</div>`,
    );
  }
  return `<section class="mines" data-testid="replay-mines"${attr('data-mine-count', bet ? Number(bet.inputs.mines) : null)}${attr('data-mines-shown', over)} aria-label="Mines board">
<div class="board cols-${MINES_COLUMNS}" role="grid">${cells.join('')}</div>
<p class="note">${over ? 'Numbers are the order of the picks; the other mines are shown as the round ended.' : 'The remaining mines are not shown while the round is open.'}</p>
${stageList(r)}</section>`;
}

function renderHilo(r: ReplayRound): string {
  const cards = r.stages
    .filter((s) => s.action === 'bet' || s.action === 'guess')
    .map((s) => {
      const name = String(s.outcome.name ?? '?');
      const guess = (s.inputs.guess as string | undefined) ?? null;
      const correct = s.outcome.correct === undefined ? null : s.outcome.correct === true;
      return `<li class="card${correct === false ? ' wrong' : ''}" data-testid="replay-card"${attr('data-card', Number(s.outcome.card))}${attr('data-name', name)}${attr('data-guess', guess)}${attr('data-correct', correct)}><span class="guess">${esc(guess ? `${guess} →` : 'first card')}</span><span class="face">${esc(name)}</span>${correct === null ? '' : `<span class="verdict">${correct ? 'right' : 'wrong'}</span>`}</li>`;
    });
  return `<section class="hilo" data-testid="replay-hilo" aria-label="Cards"><ol class="cards">${cards.join('')}</ol>${stageList(r)}</section>`;
}

function renderDice(r: ReplayRound): string {
  const rolls = r.stages
    .filter((s) => s.action === 'roll')
    .map(
      (s) =>
        `<div class="roll${s.outcome.win === true ? ' win' : ''}" data-testid="replay-roll"${attr('data-target', Number(s.inputs.target))}${attr('data-roll', Number(s.outcome.roll))}${attr('data-win', s.outcome.win === true)}><span>Target: under ${esc(formatHundredths(Number(s.inputs.target)))}</span><span class="value">Roll: ${esc(formatHundredths(Number(s.outcome.roll)))}</span><span>${s.outcome.win === true ? 'Pays' : 'No return'}</span></div>`,
    );
  return `<section class="dice" data-testid="replay-dice" aria-label="Dice">${rolls.join('')}${stageList(r)}</section>`;
}

// ── crash ───────────────────────────────────────────────────────────────────────────────────────

const W = 400;
const H = 240;

function renderCrash(r: ReplayRound): string {
  const c = r.crash;
  const f = r.fairness;
  if (!c || !f) return `<p class="note">No crash record was found for this round.</p>${stageList(r)}`;
  const crashCents = c.crash_cents;
  const cashMs = c.cashout_cents !== null ? (c.cashout_ms ?? msToReach(c.cashout_cents)) : null;
  let curve = '';
  if (crashCents !== null) {
    const endMs = Math.max(1, crashMs(Math.min(crashCents, CRASH_CAP_CENTS)));
    const top = Math.max(crashCents, 200) / 100;
    const x = (ms: number) => 30 + ((W - 40) * ms) / endMs;
    const y = (cents: number) => H - 20 - ((H - 40) * (cents / 100 - 1)) / (top - 1);
    const pts: string[] = [];
    const N = 120;
    for (let i = 0; i <= N; i++) {
      const ms = Math.round((endMs * i) / N);
      pts.push(`${x(ms).toFixed(1)},${y(Math.min(centsAt(ms), crashCents)).toFixed(1)}`);
    }
    const cash =
      c.cashout_cents !== null && cashMs !== null
        ? `<circle class="cashout" data-testid="replay-cashout-point" cx="${x(Math.min(cashMs, endMs)).toFixed(1)}" cy="${y(c.cashout_cents).toFixed(1)}" r="6"${attr('data-cashout', formatMultiplier(c.cashout_cents))}></circle>`
        : '';
    curve = `<svg class="curve" data-testid="replay-curve" viewBox="0 0 ${W} ${H}"${attr('data-crash-point', formatMultiplier(crashCents))}${attr('data-crash-ms', endMs)}${attr('data-cashout', c.cashout_cents === null ? null : formatMultiplier(c.cashout_cents))} role="img" aria-label="${esc(`Multiplier curve to the crash at ${formatMultiplier(crashCents)}x`)}">
<line class="axis" x1="30" y1="${H - 20}" x2="${W - 10}" y2="${H - 20}"></line><line class="axis" x1="30" y1="10" x2="30" y2="${H - 20}"></line>
<text class="tick" x="4" y="${H - 16}">1.00x</text><text class="tick" x="4" y="24">${esc(top.toFixed(2))}x</text>
<path class="line" d="M${pts.join(' L')}"></path>
<circle class="crash" cx="${x(endMs).toFixed(1)}" cy="${y(crashCents).toFixed(1)}" r="6"></circle>${cash}</svg>`;
  } else {
    curve =
      '<p class="note" data-testid="replay-curve" data-crash-point="">The round has not ended: the crash point is revealed when it does.</p>';
  }
  const facts = `<dl class="facts crash-facts">
<div><dt>Crash point</dt><dd data-testid="replay-crash-point">${crashCents === null ? 'not yet revealed' : `${esc(formatMultiplier(crashCents))}x`}</dd></div>
<div><dt>Cash-out</dt><dd data-testid="replay-cashout"${attr('data-cashout', c.cashout_cents === null ? '' : formatMultiplier(c.cashout_cents))}>${c.cashout_cents === null ? 'none' : `${esc(formatMultiplier(c.cashout_cents))}x${cashMs !== null ? ` after ${(cashMs / 1000).toFixed(2)} s` : ''}${c.auto_cashout_cents !== null && c.auto_cashout_cents === c.cashout_cents ? ' (automatic)' : ''}`}</dd></div>
<div><dt>Automatic cash-out target</dt><dd>${c.auto_cashout_cents === null ? 'none' : `${esc(formatMultiplier(c.auto_cashout_cents))}x`}</dd></div>
</dl>`;
  const row = (label: string, testid: string, value: string | number | null) =>
    `<div><dt>${esc(label)}</dt><dd class="mono" data-testid="${esc(testid)}">${value === null ? 'revealed when the round ends' : esc(String(value))}</dd></div>`;
  const proof = `<section class="fairness" data-testid="replay-fairness" aria-label="Fairness proof">
<h2>Fairness proof</h2>
<dl class="facts">
${row('Scheme', 'fairness-scheme', f.scheme)}
${row('Server seed', 'fairness-server-seed', f.server_seed)}
${row('Server seed hash (commitment shown before the bet)', 'fairness-commitment', f.commitment)}
${row('Client seed', 'fairness-client-seed', f.client_seed)}
${row('Nonce (chain position)', 'fairness-nonce', f.nonce)}
${row('Chain terminal hash', 'fairness-terminal-hash', f.chain.terminal_hash)}
${row('Chain length', 'fairness-chain-length', f.chain.length)}
${row('RTP', 'fairness-rtp', f.rtp)}
</dl>
<p class="verdict" data-testid="fairness-result" data-result="${f.server_seed ? 'checking' : 'unrevealed'}" role="status">${f.server_seed ? 'Checking in your browser…' : 'The server seed is revealed when the round ends; the check runs then.'}</p>
<ul class="checks" data-testid="fairness-checks"></ul>
</section>`;
  return `<section class="crash" data-testid="replay-crash"${attr('data-state', c.state)}>${curve}${facts}${stageList(r)}</section>${proof}`;
}

// ── the page ────────────────────────────────────────────────────────────────────────────────────

/** JSON for a `<script type="application/json">` data block: no `<`, `>`, `&` or line separators raw. */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function renderReplayPage(r: ReplayRound, assets: ReplayAssets): string {
  const banner = STATUS_TEXT[r.status];
  const shown = played(r);
  let body = '';
  if (!shown) {
    body = `<p class="note" data-testid="replay-no-outcome">${r.status === 'rejected' ? 'The bet was refused: no outcome was played.' : 'The bet has not been confirmed by the wallet yet: the outcome is shown once it is.'}</p>`;
  } else if (r.family === 'slot') body = renderSlot(r);
  else if (r.family === 'mines') body = renderMines(r);
  else if (r.family === 'hilo') body = renderHilo(r);
  else if (r.family === 'dice') body = renderDice(r);
  else if (r.family === 'crash') body = renderCrash(r);
  else body = stageList(r);
  const stake = r.free_round ? (r.free_round.bet_minor ?? r.bet_minor) : r.bet_minor;
  const markers: string[] = [];
  if (r.free_round) {
    markers.push(
      `<span class="marker free" data-testid="replay-free-round"${attr('data-campaign', r.free_round.campaign_id)}>Free round (no stake debited)</span>`,
    );
  }
  if (shown && r.jackpot_win_minor !== '0') {
    markers.push(
      `<span class="marker jackpot" data-testid="replay-jackpot"${attr('data-win-minor', r.jackpot_win_minor)}>Jackpot ${esc(money(r.jackpot_win_minor, r))}</span>`,
    );
  }
  if (r.stuck)
    markers.push('<span class="marker stuck" data-testid="replay-stuck">Under review by the casino</span>');
  const crashData = r.family === 'crash' && shown && r.fairness?.server_seed ? r.fairness : null;
  return `${head(`${r.title}: round replay`, assets, true)}
<body>
<main class="replay" data-testid="replay"${attr('data-round-id', r.round_id)}${attr('data-symbol', r.symbol)}${attr('data-family', r.family)}${attr('data-status', r.status)}>
<header class="bar"><h1>${esc(r.title)}</h1><p class="sub">Round replay</p></header>
${banner ? `<p class="banner ${esc(r.status)}" data-testid="replay-status"${attr('data-status', r.status)} role="status">${esc(banner)}</p>` : ''}
${markers.length > 0 ? `<p class="markers">${markers.join(' ')}</p>` : ''}
<dl class="facts summary">
<div><dt>Round</dt><dd class="mono" data-testid="replay-round-id">${esc(r.round_id)}</dd></div>
<div><dt>Played</dt><dd><time datetime="${esc(r.created_at)}">${esc(r.created_at.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</time></dd></div>
<div><dt>Stake</dt><dd data-testid="replay-stake"${attr('data-minor', stake)}>${esc(money(stake, r))}${r.free_round ? ' (free round)' : ''}</dd></div>
<div><dt>Total return</dt><dd data-testid="replay-win"${attr('data-minor', r.win_minor)}>${esc(money(r.win_minor, r))}</dd></div>
<div><dt>Balance before</dt><dd data-testid="replay-balance-before"${attr('data-minor', r.balance_before_minor ?? '')}>${esc(money(r.balance_before_minor, r))}</dd></div>
<div><dt>Balance after</dt><dd data-testid="replay-balance-after"${attr('data-minor', r.balance_after_minor ?? '')}>${esc(money(r.balance_after_minor, r))}</dd></div>
</dl>
${body}
</main>
${crashData ? `<script type="application/json" id="replay-data" data-testid="replay-data">${jsonForHtml({ fairness: crashData })}</script>\n` : ''}</body>
</html>
`;
}

const ERROR_TEXT = {
  not_found: 'This replay link is not valid, or the round does not exist.',
  expired: 'This replay link has expired. Ask the casino for a new one.',
  revoked: 'This replay link has been withdrawn. Ask the casino for a new one.',
} as const;

/** A link that opens no round: a message, no data, no script. */
export function renderReplayError(reason: keyof typeof ERROR_TEXT, assets: ReplayAssets): string {
  return `${head('Round replay unavailable', assets, false)}
<body>
<main class="replay" data-state="error">
<p class="error" data-testid="replay-error"${attr('data-reason', reason)} role="alert">${esc(ERROR_TEXT[reason])}</p>
</main>
</body>
</html>
`;
}
