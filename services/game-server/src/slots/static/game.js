// The slot page's script: plain browser JavaScript, served as written from /gs2c/static/.
// It reads the launch token (`mgckey`) from the page's own URL and sends it only in the
// `x-session-token` header of same-origin runtime calls; it never puts it in another URL.
// DOM updates use textContent and attributes only (the page's CSP enforces Trusted Types).
(() => {
  const token = new URLSearchParams(window.location.search).get('mgckey');
  const byId = (id) => document.querySelector(`[data-testid="${id}"]`);
  const el = {
    game: byId('game'),
    balance: byId('game-balance'),
    lastWin: byId('last-win'),
    stake: byId('stake-select'),
    level: byId('bet-level-select'),
    levelField: document.querySelector('[data-field="bet-level"]'),
    spin: byId('spin-button'),
    close: byId('close-button'),
    error: byId('game-error'),
    message: byId('game-message'),
    reels: byId('reels'),
    lineWins: byId('line-wins'),
    payline: null,
    controls: byId('controls'),
    free: byId('free-rounds'),
    freeCount: byId('free-rounds-count'),
    freeStake: byId('free-rounds-stake'),
    freeWon: byId('free-rounds-won'),
    freeDecline: byId('free-rounds-decline'),
    jackpot: byId('jackpot-ticker'),
    jackpotName: byId('jackpot-name'),
    jackpotLevels: byId('jackpot-levels'),
    jackpotWin: byId('jackpot-win'),
    tournament: byId('tournament'),
    tournamentName: byId('tournament-name'),
    tournamentEnds: byId('tournament-ends'),
    tournamentMe: byId('tournament-me'),
    tournamentBoard: byId('tournament-board'),
    jackpotWinTitle: document.getElementById('jackpot-win-title'),
    jackpotWinText: byId('jackpot-win-text'),
    jackpotWinClose: byId('jackpot-win-close'),
  };

  let session = null;
  let money = null;
  let spinning = false;
  let ended = false;
  /** Player protection: the operator's wallet stopped this session's bets (until a relaunch). */
  let blocked = null;
  /** Free rounds of an operator's campaign to play before paid spins (null: none, or declined). */
  let freeRounds = null;
  // ── jurisdiction rules (GET /api/runtime/session: rules, play, reality_check) ────────────────
  /** GB: no spin starts before this (local clock; the server enforces it too). */
  let spinLockedUntil = 0;
  const stream = new AbortController();
  // Time played, net position and the reality check: the shared script reality-check.js. The
  // pause keeps the spin controls off; a spin already sent finishes under it.
  const check = window.RealityCheck.create({
    formatMoney: (minor) => money.format(minor),
    post: (action) => api('/api/runtime/reality-check', { method: 'POST', body: { action } }),
    reread: async () => {
      const again = await api('/api/runtime/session');
      if (again.ok) check.apply(again.json);
    },
    isEnded: () => ended,
    render: () => setBusy(spinning),
    failed: () => showError('Connection problem: please try again.'),
    fatal: (text) => fatal(text),
    beforeLeave: () => stream.abort(),
  });

  // ── messages ─────────────────────────────────────────────────────────────────────────────────
  function showError(text) {
    el.error.textContent = text;
    el.error.hidden = false;
  }
  function clearError() {
    el.error.textContent = '';
    el.error.hidden = true;
  }
  function say(text) {
    el.message.textContent = text;
  }
  /** The session is over or never started: a message and no game controls. */
  function fatal(text) {
    ended = true;
    stream.abort();
    el.controls?.remove();
    el.reels?.remove();
    el.close.hidden = !el.close.dataset.href;
    say('');
    showError(text);
    el.game.dataset.state = 'error';
  }
  /** The server's text for the wallet's refusal code; an unknown code still names the code. */
  const refusalText = (code, message) =>
    typeof message === 'string' && message
      ? message
      : `Your operator declined this bet (${code || 'rejected'}).`;
  /**
   * Player protection: the operator's wallet refused a debit with a code that stops this session's
   * bets (self-exclusion, a session time limit, a blocked account). The message stays and the bet
   * controls stay disabled until the operator launches the game again (a new launch URL).
   */
  function blockBets(b) {
    blocked = b;
    el.game.dataset.betsBlocked = b.code;
    el.game.dataset.state = 'blocked';
    say('');
    showError(refusalText(b.code, b.message));
    setBusy(false);
  }
  const SESSION_ENDED = 'This game session has ended. Please open the game again from the casino.';
  const detailOf = (json) => (json && typeof json.detail === 'string' ? json.detail : '');

  // ── runtime calls (same origin, token in a header only) ─────────────────────────────────────
  async function api(path, init = {}) {
    const res = await window.PageFetch.call(path, { method: init.method || 'GET', body: init.body, token });
    if (res.status === 401) fatal(SESSION_ENDED);
    return res;
  }

  // ── balance: shown through the shared keeper (balance.js). A spin holds it from the click until
  // its round is over, so a refresh signal or a reconnect during the spin reads the wallet after
  // the spin's own balance is shown, and a read that answers late never overwrites a newer one.
  function showBalance(decimal) {
    const minor = money.toMinor(decimal);
    el.balance.dataset.balanceMinor = minor ?? '';
    el.balance.textContent = minor === null ? `${session.currency} ${decimal}` : money.format(minor);
  }
  async function readBalance() {
    try {
      const res = await api('/api/runtime/balance');
      if (ended) return null;
      if (!res.ok) {
        showError(`Your balance could not be read. ${detailOf(res.json)}`.trim());
        return null;
      }
      return res.json.balance;
    } catch {
      showError('Connection problem: your balance could not be read.');
      return null;
    }
  }
  const balance = window.BalanceKeeper.create({ read: readBalance, show: showBalance, isEnded: () => ended });
  /** Reads the wallet's balance (after the open spin, if one is). */
  const refreshBalance = () => balance.refresh();

  // ── stakes ───────────────────────────────────────────────────────────────────────────────────
  /** Level 0 is the base game; other levels are the title's special bet levels (cost bet x level). */
  function stakesFor(level) {
    if (level === 0) return session.stakes_minor;
    return session.bet_levels.find((l) => l.bet_level === level)?.stakes_minor ?? [];
  }
  /** The paid stake chosen before free rounds took the selector over (restored after them). */
  let paidStake = null;
  function fillStakes() {
    // Free rounds play at the campaign's stake: the selector shows that one, disabled.
    if (freeRounds) {
      if (el.stake.dataset.freeRound !== 'true') paidStake = el.stake.value;
      const option = document.createElement('option');
      option.value = freeRounds.bet_minor;
      option.textContent = money.format(freeRounds.bet_minor);
      el.stake.replaceChildren(option);
      el.stake.value = freeRounds.bet_minor;
      el.stake.dataset.freeRound = 'true';
      el.level.value = '0';
      return;
    }
    const level = Number(el.level.value || 0);
    const previous = el.stake.dataset.freeRound === 'true' ? paidStake : el.stake.value;
    delete el.stake.dataset.freeRound;
    el.stake.replaceChildren();
    for (const bet of stakesFor(level)) {
      const option = document.createElement('option');
      option.value = bet;
      option.textContent = money.format(level === 0 ? bet : (BigInt(bet) * BigInt(level)).toString());
      el.stake.append(option);
    }
    if ([...el.stake.options].some((o) => o.value === previous)) el.stake.value = previous;
  }
  function fillLevels() {
    el.level.replaceChildren();
    const base = document.createElement('option');
    base.value = '0';
    base.textContent = 'Standard';
    el.level.append(base);
    for (const l of session.bet_levels) {
      const option = document.createElement('option');
      option.value = String(l.bet_level);
      option.textContent = `Special x${l.bet_level}`;
      el.level.append(option);
    }
    el.levelField.hidden = session.bet_levels.length === 0;
  }
  function setBusy(busy) {
    const off = busy || blocked !== null || check.isOpen() || Date.now() < spinLockedUntil;
    el.spin.disabled = off;
    el.stake.disabled = off || freeRounds !== null;
    el.level.disabled = off || freeRounds !== null;
    el.spin.setAttribute('aria-busy', String(busy));
  }

  // ── reels: drawn symbols, the spin animation, winning lines ─────────────────────────────────
  // Each cell shows the title's drawn symbol (GET /gs2c/art/<game>/<NAME>.svg, from the session's
  // `symbol_art`) as a decorative <img alt="">; the cell itself is role="img" named by the symbol's
  // spoken name (and holds it as visually hidden text), with data-symbol="<NAME>".
  const reduceMotion = window.matchMedia?.('(prefers-reduced-motion: reduce)');
  const cellsOf = () => (el.reels ? [...el.reels.querySelectorAll('[data-testid="reel-cell"]')] : []);
  const artOf = (id) => session.symbol_art?.[id];
  const nameOf = (id) => session.symbol_names[id] ?? String(id);
  const labelOf = (id) => artOf(id)?.label ?? nameOf(id);
  let reelTimer = null;
  let lineTimer = null;
  let spinStartedAt = 0;
  function cellParts(cell) {
    let img = cell.querySelector('img');
    let text = cell.querySelector('.sr-only');
    if (!img) {
      img = document.createElement('img');
      img.alt = '';
      img.decoding = 'async';
      img.draggable = false;
      text = document.createElement('span');
      text.className = 'sr-only';
      cell.replaceChildren(img, text);
      cell.setAttribute('role', 'img');
    }
    return { img, text };
  }
  /** What a cell shows and says: the art, the spoken name, data-symbol="<NAME>". */
  function paintCell(cell, id) {
    const { img, text } = cellParts(cell);
    const art = artOf(id);
    if (art) img.src = art.path;
    else img.removeAttribute('src');
    img.hidden = !art;
    text.textContent = labelOf(id);
    cell.setAttribute('aria-label', labelOf(id));
    cell.dataset.symbol = nameOf(id);
    cell.dataset.symbolId = String(id);
  }
  /** The grid before the first spin: the title's symbols in order (no wild or scatter). */
  function paintIdleGrid() {
    const n = session.symbol_names.length;
    if (n < 3) return;
    cellsOf().forEach((cell, i) => {
      paintCell(cell, 2 + ((i * 4 + Math.floor(i / 3)) % (n - 2)));
    });
    // The active winning line is drawn over the reels (cell centres on a 500 x 300 box).
    if (el.reels && !el.payline) {
      el.payline = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      el.payline.setAttribute('class', 'payline');
      el.payline.setAttribute('viewBox', '0 0 500 300');
      el.payline.setAttribute('preserveAspectRatio', 'none');
      el.payline.setAttribute('aria-hidden', 'true');
      el.payline.setAttribute('data-testid', 'payline');
      el.reels.append(el.payline);
    }
    // Fetch every symbol once now, so a spin never waits for (or fails on) an image.
    for (const art of session.symbol_art ?? []) new Image().src = art.path;
  }
  /**
   * Reels spin from the click until the answer has come and a minimum time has passed (GB: 1.5 s,
   * so the reels stop about 2.2 s after the spin started, before the 2.5 s between spin starts
   * ends; elsewhere 0.7 s), then stop left to right. With reduced motion nothing moves: the cells
   * dim while the spin is open and the result shows at once.
   */
  function spinMinimumMs() {
    if (reduceMotion?.matches) return 0;
    return session.rules?.min_spin_interval_ms ? 1500 : 700;
  }
  const STOP_STAGGER_MS = 120;
  function startReels() {
    clearLineWins();
    spinStartedAt = Date.now();
    if (!el.reels) return;
    el.reels.setAttribute('aria-busy', 'true');
    el.reels.dataset.reels = reduceMotion?.matches ? 'waiting' : 'spinning';
    const cells = cellsOf();
    for (const cell of cells) cell.dataset.spin = 'spinning';
    if (reduceMotion?.matches) return;
    // Blurred symbols pass by: a cheap swap of the (already fetched) art under the CSS roll.
    const n = session.symbol_art?.length ?? 0;
    if (n === 0) return;
    let tick = 0;
    reelTimer = setInterval(() => {
      tick++;
      cells.forEach((cell, i) => {
        if (cell.dataset.spin !== 'spinning') return;
        const img = cell.querySelector('img');
        if (img) img.src = session.symbol_art[(i * 7 + tick * 3 + Math.floor(i / 3)) % n].path;
      });
    }, 110);
  }
  function endReels() {
    if (reelTimer) clearInterval(reelTimer);
    reelTimer = null;
    if (!el.reels) return;
    el.reels.removeAttribute('aria-busy');
    delete el.reels.dataset.reels;
    for (const cell of cellsOf()) {
      delete cell.dataset.spin;
      // A spin that showed nothing (refused, failed): the cell's own symbol again.
      if (cell.dataset.symbolId) paintCell(cell, Number(cell.dataset.symbolId));
    }
  }
  const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
  /** The grid a spin's answer shows: the base game's (a bought feature's last free spin). */
  function gridOf(outcome) {
    if (Array.isArray(outcome?.grid) && outcome.grid.length > 0) return outcome.grid;
    const free = (outcome?.freeSpins ?? []).map((f) => f.grid).filter((g) => Array.isArray(g) && g.length);
    return free[free.length - 1] ?? null;
  }
  /** Stops the reels on the answer's grid (left to right), then marks the winning lines. */
  async function landReels(outcome) {
    const grid = gridOf(outcome);
    if (!grid || !el.reels) return endReels();
    await sleep(spinStartedAt + spinMinimumMs() - Date.now());
    if (reelTimer) clearInterval(reelTimer);
    reelTimer = null;
    const cells = cellsOf();
    const still = reduceMotion?.matches;
    for (let r = 0; r < grid.length; r++) {
      grid[r].forEach((symbol, row) => {
        const cell = cells[r * 3 + row];
        if (!cell) return;
        paintCell(cell, symbol);
        cell.dataset.spin = still ? '' : 'landing';
      });
      if (!still && r < grid.length - 1) await sleep(STOP_STAGGER_MS);
    }
    if (!still) await sleep(200); // the last reel's settle (game.css: reel-land)
    for (const cell of cells) delete cell.dataset.spin;
    el.reels.removeAttribute('aria-busy');
    delete el.reels.dataset.reels;
    if (grid === outcome.grid) showLineWins(outcome, grid);
    else showLineWins({ lineWins: [], freeSpins: outcome.freeSpins }, grid);
  }

  /** Cells (indexes into the 15) of one line win on `grid`. */
  function winCells(win, grid) {
    const out = [];
    if (win.line >= 0) {
      const rows = session.paylines?.[win.line];
      if (!rows) return out;
      for (let r = 0; r < win.count; r++) out.push(r * 3 + rows[r]);
      return out;
    }
    // Ways: the symbol on reel 1, the symbol or a wild on the next reels.
    const wild = session.symbol_names.indexOf('WILD');
    for (let r = 0; r < win.count; r++) {
      (grid[r] ?? []).forEach((s, row) => {
        if (s === win.symbol || (r > 0 && s === wild)) out.push(r * 3 + row);
      });
    }
    return out;
  }
  function clearLineWins() {
    if (lineTimer) clearInterval(lineTimer);
    lineTimer = null;
    for (const cell of cellsOf()) {
      delete cell.dataset.win;
      delete cell.dataset.winLines;
      delete cell.dataset.lineFocus;
    }
    if (el.lineWins) {
      el.lineWins.replaceChildren();
      el.lineWins.hidden = true;
    }
    el.payline?.replaceChildren();
    if (el.reels) delete el.reels.dataset.wins;
  }
  /** One line at a time: its cells lit, its path drawn over the reels, its entry marked. */
  function focusLine(index) {
    const items = el.lineWins ? [...el.lineWins.children] : [];
    items.forEach((item, i) => {
      item.dataset.active = String(i === index);
    });
    const item = items[index];
    const cellIds = item ? item.dataset.cells.split(' ').map(Number) : [];
    cellsOf().forEach((cell, i) => {
      if (cellIds.includes(i)) cell.dataset.lineFocus = 'true';
      else delete cell.dataset.lineFocus;
    });
    if (!el.payline) return;
    el.payline.replaceChildren();
    if (!item || item.dataset.line === undefined || Number(item.dataset.line) < 0) return;
    const rows = session.paylines?.[Number(item.dataset.line)];
    if (!rows) return;
    const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
    line.setAttribute('points', rows.map((row, r) => `${r * 100 + 50},${row * 100 + 50}`).join(' '));
    el.payline.append(line);
  }
  /** Marks each winning line's cells and lists the line's win (and scatter and free-spin wins). */
  function showLineWins(outcome, grid) {
    clearLineWins();
    if (!el.lineWins) return;
    const entries = [];
    for (const win of outcome.lineWins ?? []) {
      const name = labelOf(win.symbol);
      const what =
        win.line >= 0
          ? `Line ${win.line + 1}: ${win.count} × ${name}`
          : `${win.count} × ${name}, ${win.ways} ${win.ways === 1 ? 'way' : 'ways'}`;
      entries.push({ line: win.line, cells: winCells(win, grid), text: what, minor: win.winMinor });
    }
    if (outcome.scatterWinMinor && outcome.scatterWinMinor !== '0') {
      const scatter = session.symbol_names.indexOf('SCATTER');
      const cells = [];
      grid.forEach((reel, r) => {
        reel.forEach((s, row) => {
          if (s === scatter) cells.push(r * 3 + row);
        });
      });
      entries.push({
        line: -2,
        cells,
        text: `${cells.length} × ${labelOf(scatter)}`,
        minor: outcome.scatterWinMinor,
      });
    }
    const free = outcome.freeSpins ?? [];
    if (free.length > 0) {
      const total = free.reduce((sum, f) => sum + BigInt(f.winMinor ?? '0'), 0n);
      entries.push({ line: -3, cells: [], text: `${free.length} free spins`, minor: total.toString() });
    }
    if (entries.length === 0) return;
    const cells = cellsOf();
    const lit = new Map();
    const items = entries.map((e, i) => {
      for (const c of e.cells) lit.set(c, [...(lit.get(c) ?? []), String(i)]);
      const item = document.createElement('li');
      item.setAttribute('data-testid', 'line-win');
      item.dataset.line = String(e.line);
      item.dataset.cells = e.cells.join(' ');
      item.dataset.winMinor = String(e.minor);
      item.tabIndex = 0;
      const what = document.createElement('span');
      what.textContent = e.text;
      const amount = document.createElement('span');
      amount.className = 'amount';
      amount.textContent = money.format(String(e.minor));
      item.append(what, amount);
      item.addEventListener('mouseenter', () => focusLine(i));
      item.addEventListener('focus', () => focusLine(i));
      return item;
    });
    for (const [c, wins] of lit) {
      if (!cells[c]) continue;
      cells[c].dataset.win = 'true';
      cells[c].dataset.winLines = wins.join(' ');
    }
    el.lineWins.replaceChildren(...items);
    el.lineWins.hidden = false;
    if (el.reels) el.reels.dataset.wins = String(entries.length);
    focusLine(0);
    // Several wins: each is shown in turn (no movement, so also with reduced motion).
    if (items.length > 1) {
      let at = 0;
      lineTimer = setInterval(() => {
        at = (at + 1) % items.length;
        focusLine(at);
      }, 1400);
    }
  }

  // ── spin ─────────────────────────────────────────────────────────────────────────────────────
  /**
   * A spin answered `pending` (the wallet has not confirmed the debit yet): the page follows its
   * round (1 s, doubling to 5 s between reads) until it completes, is refused or is cancelled, and
   * answers what the spin would have. Null when the page ended or the round is not this session's.
   */
  async function followRound(roundId) {
    let wait = 1000;
    for (;;) {
      await sleep(wait);
      wait = Math.min(wait * 2, 5000);
      if (ended) return null;
      let res;
      try {
        res = await api(`/api/runtime/rounds/${encodeURIComponent(roundId)}`);
      } catch {
        continue;
      }
      if (ended) return null;
      if (res.status === 404) return null;
      if (res.ok && res.json.status !== 'pending') return res.json;
    }
  }

  /** Shows a spin's answer once its round is over: the reels, the win, the wallet's balance. */
  async function showSpinAnswer(r) {
    if (r.free_round && freeRounds) {
      showFreeRounds(
        r.free_round.rounds_remaining > 0
          ? {
              ...freeRounds,
              rounds_remaining: r.free_round.rounds_remaining,
              won_minor: (BigInt(freeRounds.won_minor) + BigInt(r.win_minor ?? '0')).toString(),
            }
          : null,
      );
      if (r.free_round_last) say('That was your last free round.');
    }
    if (r.status === 'completed') {
      await landReels(r.outcome);
      balance.answer(r.balance);
      el.lastWin.dataset.winMinor = r.win_minor;
      el.lastWin.textContent = money.format(r.win_minor);
      // No celebration of a return at or below the stake (every jurisdiction): neutral wording.
      const stakeMinor = BigInt(r.free_round?.bet_minor ?? r.bet_minor ?? '0');
      const small = r.win_minor !== '0' && BigInt(r.win_minor) <= stakeMinor;
      el.lastWin.dataset.celebrate = r.win_minor !== '0' && !small ? 'true' : 'false';
      if (el.lastWin.previousElementSibling)
        el.lastWin.previousElementSibling.textContent = small ? 'Returned' : 'Last win';
      say(
        r.win_minor === '0'
          ? ''
          : small
            ? `Returned ${money.format(r.win_minor)}`
            : `You won ${money.format(r.win_minor)}`,
      );
      check.showNet((BigInt(check.net()) + BigInt(r.win_minor) - BigInt(r.bet_minor)).toString());
      if (r.jackpot_wins?.length) showJackpotWin(r.jackpot_wins, r.prize_drop);
      if (!el.tournament.hidden) setTimeout(() => void readTournaments(), 300);
      else if (r.prize_drop) showPrizeDrop(r.prize_drop);
    } else if (r.status === 'rejected') {
      say('');
      el.game.dataset.rejected = r.error || 'rejected';
      if (r.bets_blocked) blockBets(r.bets_blocked);
      else showError(refusalText(r.error, r.error_message));
      if (r.balance) balance.answer(r.balance);
      else void refreshBalance();
    } else {
      say('');
      showError('The round was cancelled and your stake returned.');
      if (r.balance) balance.answer(r.balance);
      else void refreshBalance();
    }
  }

  async function spin() {
    if (
      spinning ||
      ended ||
      blocked ||
      check.isOpen() ||
      !el.jackpotWin.hidden ||
      Date.now() < spinLockedUntil ||
      !el.stake.value
    )
      return;
    spinning = true;
    // From the click until the round is over, balance reads wait (balance.js): the spin's own
    // balance is shown first, then a refresh asked for meanwhile reads the wallet.
    balance.hold();
    lockSpinsFor(session.rules?.min_spin_interval_ms ?? 0);
    setBusy(true);
    clearError();
    say('Spinning…');
    startReels();
    const level = Number(el.level.value || 0);
    const free = freeRounds;
    const body = free
      ? { bet_minor: free.bet_minor, mode: 'base', free_round: true }
      : level === 0
        ? { bet_minor: el.stake.value, mode: 'base' }
        : { bet_minor: el.stake.value, mode: 'special', bet_level: level };
    try {
      const res = await api('/api/runtime/spin', { method: 'POST', body });
      if (ended) return;
      if (!res.ok) {
        say('');
        if (res.status === 409 && res.json?.bets_blocked) blockBets(res.json.bets_blocked);
        else if (res.status === 409 && res.json?.error === 'free_rounds_pending')
          showFreeRounds(res.json.free_rounds);
        else if (res.status === 409 && free) showFreeRounds(null);
        else if (res.status === 409 && res.json?.error === 'reality_check_due') check.open();
        else if (res.status === 429 && res.json?.retry_after_ms) lockSpinsFor(res.json.retry_after_ms);
        else showError(detailOf(res.json) || 'The spin could not be played.');
        void refreshBalance();
        return;
      }
      let r = res.json;
      if (r.status === 'pending') {
        // The wallet has not confirmed the bet: the answer carries no outcome. The reels keep
        // turning while the page follows the round; they land when it is over.
        say('Waiting for your casino to confirm the bet…');
        el.game.dataset.round = 'pending';
        const over = await followRound(r.round_id);
        delete el.game.dataset.round;
        if (!over) {
          if (!ended) {
            say('');
            showError('The result of this spin is not known yet. Your balance is being read again.');
            void refreshBalance();
          }
          return;
        }
        r = { ...r, ...over };
        // The round ended later than the spin's answer: the wallet is read once more after it.
        void refreshBalance();
      }
      await showSpinAnswer(r);
    } catch {
      say('');
      showError(
        'Connection problem: the result of this spin is not known yet. Your balance is being read again.',
      );
      void refreshBalance();
    } finally {
      endReels();
      spinning = false;
      balance.release();
      if (!ended) setBusy(false);
    }
  }

  // ── jackpot ticker and win screen (GET /api/runtime/jackpot; `jackpot` events on the stream) ──
  let jackpotPoll = null;
  function showJackpot(tick) {
    el.jackpot.hidden = !tick;
    if (!tick) return;
    el.jackpot.dataset.jackpotId = tick.jackpot_id;
    el.jackpotName.textContent = tick.name;
    el.jackpotLevels.replaceChildren(
      ...tick.levels.map((l) => {
        const item = document.createElement('li');
        item.setAttribute('data-testid', 'jackpot-level');
        item.dataset.level = l.level;
        item.dataset.amountMinor = l.amount_minor;
        const name = document.createElement('span');
        name.className = 'label';
        name.textContent = l.level;
        const amount = document.createElement('output');
        amount.textContent = money.format(l.amount_minor);
        item.append(name, amount);
        return item;
      }),
    );
  }
  async function readJackpot() {
    try {
      const res = await api('/api/runtime/jackpot');
      if (res.ok) showJackpot(res.json.jackpot);
    } catch {
      // The next read tries again.
    }
  }
  /** A prize beside the round (a jackpot, a prize drop): its own screen; the wallet is paid just after. */
  function showPrize(kind, heading, text, amountMinor) {
    el.jackpotWin.dataset.kind = kind;
    el.jackpotWin.dataset.amountMinor = amountMinor;
    el.jackpotWinTitle.textContent = heading;
    el.jackpotWinText.textContent = text;
    el.jackpotWin.hidden = false;
    el.jackpotWinClose.focus();
    setTimeout(() => void refreshBalance(), 1500);
  }
  function showJackpotWin(wins, drop) {
    const total = wins.reduce((sum, w) => sum + BigInt(w.amount_minor), 0n);
    const text = wins.map((w) => `the ${w.level} jackpot: ${money.format(w.amount_minor)}`).join(', ');
    const also = drop ? ` And a prize drop: ${money.format(drop.amount_minor)}.` : '';
    showPrize('jackpot', 'Jackpot', `You won ${text}.${also}`, total.toString());
    void readJackpot();
  }
  function showPrizeDrop(prize) {
    showPrize(
      'prize_drop',
      'Prize drop',
      `You won a prize drop: ${money.format(prize.amount_minor)}.`,
      prize.amount_minor,
    );
  }

  // ── tournament leaderboard (GET /api/runtime/tournaments, read every few seconds) ─────────────
  let tournamentPoll = null;
  function scoreText(t, score) {
    if (t.scoring === 'total_win') return money.format(score.split('.')[0]);
    return `×${Number(score).toFixed(2)}`;
  }
  function showTournament(list) {
    const t = list.find((x) => x.status === 'running') ?? list[0] ?? null;
    el.tournament.hidden = !t;
    if (!t) return;
    el.tournament.dataset.tournamentId = t.tournament_id;
    el.tournament.dataset.status = t.status;
    el.tournament.dataset.myRank = t.me ? String(t.me.rank) : '';
    el.tournamentName.textContent = t.name;
    const ended = t.status === 'ended' || t.status === 'paid' || Date.parse(t.ends_at) <= Date.now();
    const starts = Date.parse(t.starts_at);
    el.tournamentEnds.textContent = ended
      ? 'Final standings'
      : starts > Date.now()
        ? `Starts ${new Date(starts).toLocaleTimeString()}`
        : `Ends ${new Date(t.ends_at).toLocaleTimeString()}`;
    el.tournamentMe.textContent = t.me
      ? `Your place: ${t.me.rank} (${scoreText(t, t.me.score)})`
      : `Spin at ${money.format(t.min_stake_minor)} or more to take part.`;
    el.tournamentBoard.replaceChildren(
      ...t.top.map((r) => {
        const item = document.createElement('li');
        item.setAttribute('data-testid', 'tournament-row');
        item.dataset.rank = String(r.rank);
        item.dataset.own = String(r.own);
        const who = document.createElement('span');
        who.textContent = `${r.rank}. ${r.display_id}`;
        const score = document.createElement('span');
        score.textContent = scoreText(t, r.score);
        const prize = document.createElement('output');
        prize.textContent = r.prize_minor ? money.format(r.prize_minor) : '';
        item.append(who, score, prize);
        return item;
      }),
    );
  }
  async function readTournaments() {
    try {
      const res = await api('/api/runtime/tournaments');
      if (res.ok) showTournament(res.json.tournaments);
    } catch {
      // The next read tries again.
    }
  }

  // ── free rounds (GET /api/runtime/session: free_rounds) ───────────────────────────────────────
  function showFreeRounds(fr) {
    freeRounds = fr && !fr.declined && fr.rounds_remaining > 0 ? fr : null;
    // The stake selector shows the free rounds' stake (disabled) until they are spent or declined.
    if (money && (freeRounds !== null || el.stake.dataset.freeRound === 'true')) {
      fillStakes();
      setBusy(spinning);
    }
    el.free.hidden = freeRounds === null;
    el.game.dataset.freeRounds = freeRounds ? String(freeRounds.rounds_remaining) : '';
    if (!freeRounds) {
      el.spin.textContent = 'Spin';
      return;
    }
    el.freeCount.textContent = `${freeRounds.rounds_remaining} of ${freeRounds.rounds_total}`;
    el.freeStake.textContent = money.format(freeRounds.bet_minor);
    el.freeWon.dataset.wonMinor = freeRounds.won_minor;
    el.freeWon.textContent = money.format(freeRounds.won_minor);
    el.spin.textContent = 'Free spin';
  }

  async function declineFreeRounds() {
    if (spinning) return;
    const res = await api('/api/runtime/free-rounds/decline', { method: 'POST', body: {} });
    if (res.ok) showFreeRounds(null);
    else showError(detailOf(res.json) || 'The free rounds could not be declined.');
  }

  // ── jurisdiction rules: the minimum spin interval (GB) ───────────────────────────────────────
  function lockSpinsFor(ms) {
    if (!(ms > 0)) return;
    spinLockedUntil = Math.max(spinLockedUntil, Date.now() + ms + 50);
    el.game.dataset.spinLocked = 'true';
    setTimeout(
      () => {
        if (Date.now() < spinLockedUntil) return;
        delete el.game.dataset.spinLocked;
        if (!spinning && !ended) setBusy(false);
      },
      spinLockedUntil - Date.now() + 10,
    );
  }

  // ── balance-refresh signals: GET /api/runtime/events (text/event-stream over fetch) ────────
  /** Parses the stream into events; returns when the server closes it. */
  async function readEvents(body, onEvent) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let event = '';
    let data = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') {
          if (event || data.length) onEvent(event || 'message', data.join('\n'));
          event = '';
          data = [];
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const v = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = v;
          else if (field === 'data') data.push(v);
        }
      }
    }
  }
  async function subscribe() {
    let delay = 1000;
    let connectedBefore = false;
    let closedByServer = false;
    while (!ended) {
      try {
        const res = await fetch('/api/runtime/events', {
          headers: { accept: 'text/event-stream', 'x-session-token': token },
          cache: 'no-store',
          credentials: 'omit',
          referrerPolicy: 'no-referrer',
          signal: stream.signal,
        });
        // Not offered (no such route, or a family without balance refresh), or the session is over.
        if (res.status === 404 || res.status === 409 || res.status === 401 || res.status === 403) return;
        if (res.ok && res.body) {
          el.game.dataset.events = 'connecting';
          await readEvents(res.body, (name, data) => {
            if (name === 'ready') {
              el.game.dataset.events = 'ready';
              delay = 1000;
              // A signal may have been missed while the stream was down.
              if (connectedBefore) void refreshBalance();
              connectedBefore = true;
            } else if (name === 'balance-refresh') {
              void refreshBalance();
            } else if (name === 'jackpot') {
              showJackpot(JSON.parse(data));
            } else if (name === 'closed') {
              // The server ended this stream for good (another tab of the session took its place,
              // or the session is over): no reconnect.
              closedByServer = true;
            }
          });
          if (closedByServer) {
            el.game.dataset.events = 'closed';
            return;
          }
        }
      } catch {
        if (stream.signal.aborted) return;
      }
      el.game.dataset.events = 'reconnecting';
      await new Promise((r) => setTimeout(r, delay + Math.floor(Math.random() * 500)));
      delay = Math.min(delay * 2, 30_000);
    }
  }

  // ── start ────────────────────────────────────────────────────────────────────────────────────
  async function start() {
    if (!token) return fatal('This game link is not valid. Please open the game again from the casino.');
    let res;
    try {
      res = await api('/api/runtime/session');
    } catch {
      return fatal('The game could not be reached. Please check your connection and reload.');
    }
    if (ended) return;
    if (!res.ok) return fatal('The game could not start. Please try again later.');
    session = res.json;
    // Exact decimal strings at the currency's exponent, or the display unit (the shared money.js).
    money = window.UnitMoney.session(
      session.currency,
      session.currency_exponent,
      session.lang,
      session.display,
    );
    const ret = session.return_url ? new URL(session.return_url, window.location.href) : null;
    if (ret && (ret.protocol === 'https:' || ret.protocol === 'http:')) {
      el.close.dataset.href = ret.href;
      el.close.hidden = false;
      el.close.disabled = false;
    }
    if (session.stakes_minor.length === 0 && session.bet_levels.length === 0) {
      return fatal("No stake of this game fits the casino's bet limits.");
    }
    fillLevels();
    fillStakes();
    paintIdleGrid();
    el.lastWin.textContent = money.format('0');
    el.lastWin.dataset.winMinor = '0';
    el.game.dataset.state = 'ready';
    // Jurisdiction rules: no autoplay or turbo is offered on any page; GB spins start 2.5 s apart.
    el.game.dataset.jurisdiction = session.rules?.jurisdiction ?? '';
    check.apply(session);
    check.start(250);
    setBusy(false);
    if (session.bets_blocked) blockBets(session.bets_blocked);
    showFreeRounds(session.free_rounds ?? null);
    await refreshBalance();
    await readJackpot();
    await readTournaments();
    tournamentPoll = setInterval(() => void readTournaments(), 3000);
    // The stream carries the ticker (prov_a); a page without one reads it every second.
    if (!el.jackpot.hidden && session.provider_id !== 'prov_a')
      jackpotPoll = setInterval(() => void readJackpot(), 1000);
    void subscribe();
  }

  el.spin.addEventListener('click', () => void spin());
  el.freeDecline.addEventListener('click', () => void declineFreeRounds());
  el.jackpotWinClose.addEventListener('click', () => {
    el.jackpotWin.hidden = true;
  });
  el.level.addEventListener('change', fillStakes);
  el.close.addEventListener('click', () => {
    if (el.close.dataset.href) check.leave();
  });
  window.addEventListener('pagehide', () => {
    stream.abort();
    if (jackpotPoll) clearInterval(jackpotPoll);
    if (tournamentPoll) clearInterval(tournamentPoll);
  });
  void start();
})();
