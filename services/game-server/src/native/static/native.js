// The native titles' page script (Ember Mines, Ash Hi-Lo, Spark Dice): plain browser JavaScript,
// served as written from /native/static/. It reads the launch `grant` from the page's own URL,
// exchanges it once for a play token (POST /api/runtime/native/session-from-grant) and sends that
// token only in the `x-session-token` header of same-origin runtime calls. The server decides
// every outcome; this script only shows it. DOM updates use textContent and attributes only (the
// page's CSP enforces Trusted Types).
(() => {
  const grant = new URLSearchParams(window.location.search).get('grant');
  const $ = (id) => document.querySelector(`[data-testid="${id}"]`);
  const game = $('game');
  const family = game.dataset.family;
  const el = {
    balance: $('game-balance'),
    lastWin: $('last-win'),
    stake: $('stake-select'),
    play: $('play-button'),
    cashout: $('cashout-button'),
    close: $('close-button'),
    error: $('game-error'),
    message: $('game-message'),
    minesSelect: $('mines-select'),
    nextMultiplier: $('next-multiplier'),
    cells: [...document.querySelectorAll('[data-cell]')],
    card: $('hilo-card'),
    history: $('hilo-history'),
    guesses: [...document.querySelectorAll('[data-guess]')],
    diceTarget: $('dice-target'),
    diceRoll: $('dice-roll'),
    diceMultiplier: $('dice-multiplier'),
  };

  let token = null;
  let boot = null;
  let money = null;
  let round = null;
  let busy = false;
  let ended = false;
  /** Player protection: the operator's wallet stopped this session's bets (until a relaunch). */
  let blocked = null;
  let pollTimer = null;
  // ── GB: 5 s between the end of a game cycle and the next bet (the server's next_cycle and its
  // 429 cycle_too_soon); the bet button stays disabled with a countdown until then ──
  // (the shared reality-check.js's gameCycle)
  const cycle = window.RealityCheck.gameCycle(() => render());
  const playLabel = el.play.textContent;
  const { waiting: cycleWaiting, wait: waitCycle, note: noteCycle } = cycle;
  // No celebration of a return at or below the stake (every jurisdiction): neutral wording.
  const returned = (r) => BigInt(r.win_minor || '0') <= BigInt(r.stake_minor || '0');
  const SESSION_EXPIRED = 'The game session has expired. Please open the game again from the casino.';
  // ── jurisdiction rules: time played, net position and the reality check (shared script
  // reality-check.js, fed by the state reads' play and reality_check); the pause keeps play off ──
  const check = window.RealityCheck.create({
    formatMoney: (minor) => money.minor(minor),
    post: async (action) => {
      const res = await api('/api/runtime/reality-check', { action });
      if (res.status === 401) fatal(SESSION_EXPIRED);
      return res;
    },
    reread: () => refreshPlay(),
    isEnded: () => ended,
    render: () => render(),
    failed: () => showError('The game could not be reached. Please check your connection.'),
    fatal: (text) => fatal(text),
    beforeLeave: () => clearTimeout(pollTimer),
  });

  // ── money: the shared money.js (exact decimal strings at the currency's exponent, or the
  // display unit), as minor units and as the wallet's decimals ──────────────────────────────────
  function moneyFormat(currency, exponent, lang, display) {
    const shared = window.UnitMoney.session(currency, exponent, lang, display);
    if (shared.unit) {
      // The wallet's decimal in the currency -> minor units (exact digits) -> the unit.
      const decimalToMinor = (decimal) => {
        const [whole, fraction = ''] = String(decimal).split('.');
        return (whole + fraction.padEnd(exponent, '0').slice(0, exponent)).replace(/^(-?)0+(?=[0-9])/, '$1');
      };
      return { minor: shared.format, decimal: (d) => shared.unit.format(decimalToMinor(d)) };
    }
    return { minor: shared.format, decimal: shared.showDecimal };
  }

  // ── calls ──────────────────────────────────────────────────────────────────────────────────
  const api = (path, body) => window.PageFetch.call(path, { body, token });
  const detailOf = (res) =>
    res.json && typeof res.json.detail === 'string' ? res.json.detail : `The game answered ${res.status}.`;

  function fatal(text) {
    ended = true;
    clearTimeout(pollTimer);
    check.stop();
    showError(text);
    game.dataset.state = 'error';
    for (const b of [
      el.play,
      el.cashout,
      el.stake,
      el.minesSelect,
      el.diceTarget,
      ...el.cells,
      ...el.guesses,
    ]) {
      if (b) b.disabled = true;
    }
  }
  function showError(text) {
    el.error.textContent = text;
    el.error.hidden = !text;
  }
  /** The server's text for the wallet's refusal code; an unknown code still names the code. */
  const refusalText = (code, message) =>
    typeof message === 'string' && message
      ? message
      : `Your operator declined this bet (${code || 'rejected'}).`;
  /**
   * Player protection: the operator's wallet refused a debit with a code that stops this session's
   * bets (self-exclusion, a session time limit, a blocked account). Its message stays and the bet
   * controls stay disabled until the operator launches the game again.
   */
  function noteBlocked(b) {
    if (!b) return;
    blocked = b;
    game.dataset.betsBlocked = b.code;
  }
  const say = (text) => {
    el.message.textContent = text;
  };

  // ── balance ────────────────────────────────────────────────────────────────────────────────
  function showBalance(decimal) {
    el.balance.textContent = money.decimal(decimal);
    el.balance.dataset.balance = decimal;
    // The same amount in minor units (exact: digits only, padded to the currency's exponent).
    const [whole, fraction = ''] = decimal.split('.');
    const exponent = boot.session.exponent;
    el.balance.dataset.balanceMinor = BigInt(
      whole + fraction.padEnd(exponent, '0').slice(0, exponent),
    ).toString();
  }
  // Shown through the shared keeper (balance.js): an action holds it until its answer is shown, and
  // a read that answers after a newer balance was shown is read again rather than shown.
  const balance = window.BalanceKeeper.create({
    read: async () => {
      const res = await api('/api/runtime/balance');
      return res.ok ? res.json.balance : null;
    },
    show: showBalance,
    isEnded: () => ended,
  });
  const refreshBalance = () => balance.refresh();
  /** The balance a round's record carries is shown once per new value (a poll repeats it). */
  let roundBalanceShown = '';

  // ── rendering ──────────────────────────────────────────────────────────────────────────────
  const over = (r) => !r || r.status === 'completed' || r.status === 'rejected' || r.status === 'cancelled';
  const times = (m) => `×${Number(m).toFixed(2)}`;

  function renderMines(r) {
    const playing = r && r.status === 'playing';
    const m = r ? r.mines : null;
    const revealed = new Set(m ? m.revealed : []);
    const mines = new Set(m?.mines_at ? m.mines_at : []);
    for (const cell of el.cells) {
      const i = Number(cell.dataset.cell);
      let state = 'hidden';
      if (m && m.exploded === i) state = 'exploded';
      else if (revealed.has(i)) state = 'safe';
      else if (mines.has(i)) state = 'mine';
      cell.dataset.state = state;
      cell.textContent = state === 'safe' ? '◆' : state === 'exploded' ? '✹' : state === 'mine' ? '●' : '';
      cell.disabled = busy || !playing || revealed.has(i) || !m.next_multiplier;
    }
    el.minesSelect.disabled = busy || !over(r);
    el.nextMultiplier.textContent =
      playing && m.next_multiplier
        ? `${times(m.next_multiplier)} · ${money.minor(m.next_offer_minor)}`
        : over(r)
          ? times(boot.mines.first_multiplier[el.minesSelect.value])
          : '—';
  }

  function renderHilo(r) {
    const playing = r && r.status === 'playing';
    const h = r?.hilo && r.hilo.card !== null ? r.hilo : null;
    el.card.textContent = h ? h.name : '?';
    el.card.dataset.card = h ? String(h.card) : '';
    el.card.dataset.rank = h ? String(h.rank) : '';
    el.card.dataset.suit = h ? h.name.slice(-1) : '';
    el.history.replaceChildren(
      ...(h ? h.history : []).map((c) => {
        const li = document.createElement('li');
        li.textContent = c.guess ? `${c.guess} → ${c.name}` : c.name;
        if (c.correct === false) li.dataset.wrong = 'true';
        return li;
      }),
    );
    const options = new Map((playing && h ? h.options : []).map((o) => [o.guess, o]));
    for (const b of el.guesses) {
      const o = options.get(b.dataset.guess);
      b.disabled = busy || !o;
      b.querySelector('small').textContent = o
        ? ` ${times(o.multiplier)} · ${(Number(o.probability) * 100).toFixed(1)}%`
        : '';
    }
  }

  function targetHundredths() {
    const m = /^\s*([0-9]{1,2})(?:[.,]([0-9]{0,2}))?\s*$/.exec(el.diceTarget.value);
    if (!m) return null;
    const t = Number(m[1]) * 100 + Number((m[2] || '').padEnd(2, '0'));
    return t >= boot.dice.min_target && t <= boot.dice.max_target ? t : null;
  }
  function renderDice(r) {
    const d = r ? r.dice : null;
    el.diceRoll.textContent = d && d.roll !== null ? (d.roll / 100).toFixed(2) : '—';
    el.diceRoll.dataset.roll = d && d.roll !== null ? String(d.roll) : '';
    el.diceRoll.dataset.win = d && d.win !== null ? String(d.win) : '';
    el.diceTarget.disabled = busy || !over(r);
    const t = targetHundredths();
    // Display only: the server pays exactly RTP / p (98.00 / target).
    el.diceMultiplier.textContent = t ? times(Number(boot.rtp) / (t / 100)) : '—';
  }

  function render() {
    const r = round;
    game.dataset.state = ended ? 'error' : r ? r.status : 'ready';
    game.dataset.roundId = r ? r.round_id : '';
    if (family === 'mines') renderMines(r);
    else if (family === 'hilo') renderHilo(r);
    else renderDice(r);
    el.stake.disabled = busy || !over(r) || blocked !== null || check.isOpen();
    const waiting = cycleWaiting();
    el.play.disabled = ended || busy || !over(r) || blocked !== null || check.isOpen() || waiting;
    game.dataset.cycleWait = waiting ? 'true' : 'false';
    el.play.textContent = waiting ? `Next game in ${cycle.secondsLeft()} s` : playLabel;
    el.cashout.disabled = ended || busy || !r?.can_cash_out;
    el.cashout.textContent = r?.can_cash_out ? `Cash out ${money.minor(r.offer_minor)}` : 'Cash out';
    if (r && r.status === 'completed' && r.win_minor !== null) {
      el.lastWin.textContent = money.minor(r.win_minor);
      el.lastWin.dataset.winMinor = r.win_minor;
      const small = BigInt(r.win_minor) > 0n && returned(r);
      el.lastWin.dataset.celebrate = BigInt(r.win_minor) > 0n && !small ? 'true' : 'false';
      if (el.lastWin.previousElementSibling)
        el.lastWin.previousElementSibling.textContent = small ? 'Returned' : 'Last win';
    }
    if (blocked && over(r) && !ended) {
      game.dataset.state = 'blocked';
      showError(refusalText(blocked.code, blocked.message));
      return say('');
    }
    if (!r) return say('Choose a stake and press Bet.');
    if (r.stake_minor && !over(r)) el.stake.value = r.stake_minor;
    switch (r.status) {
      case 'placing':
        return say('Placing your wager…');
      case 'settling':
        return say('Settling the round…');
      case 'rejected':
        // Not while the next bet is being sent (its answer replaces this round).
        if (!busy) showError(`${refusalText(r.error, r.error_message)} The round did not start.`);
        return say('');
      case 'cancelled':
        return say('The round was cancelled and the wager returned.');
      case 'playing':
        return say(
          family === 'mines'
            ? r.can_cash_out
              ? 'Reveal another cell or cash out.'
              : `Stake ${money.minor(r.stake_minor)} placed: reveal a cell.`
            : r.can_cash_out
              ? 'Guess again or cash out.'
              : `Stake ${money.minor(r.stake_minor)} placed: higher, lower or same?`,
        );
      case 'completed': {
        const win = BigInt(r.win_minor || '0');
        if (r.abandoned) {
          return say(
            win > 0n
              ? `The round was left idle and cashed out automatically: ${money.minor(r.win_minor)}.`
              : 'The round was left idle and ended without a win.',
          );
        }
        if (family === 'dice') {
          return say(
            win > 0n && !returned(r)
              ? `Rolled ${(r.dice.roll / 100).toFixed(2)}: you win ${money.minor(r.win_minor)}!`
              : win > 0n
                ? `Rolled ${(r.dice.roll / 100).toFixed(2)}: returned ${money.minor(r.win_minor)}.`
                : `Rolled ${(r.dice.roll / 100).toFixed(2)}: no win.`,
          );
        }
        return say(
          win > 0n && !returned(r)
            ? `You won ${money.minor(r.win_minor)}!`
            : win > 0n
              ? `Returned ${money.minor(r.win_minor)}.`
              : family === 'mines'
                ? 'Boom! A mine: the round is lost.'
                : 'Wrong guess: the round is lost.',
        );
      }
    }
  }

  function show(r) {
    round = r;
    if (r?.balance && `${r.round_id}|${r.balance}` !== roundBalanceShown) {
      roundBalanceShown = `${r.round_id}|${r.balance}`;
      balance.answer(r.balance);
    }
    render();
    schedulePoll();
  }

  // ── polling while the wallet or the workflow is working ────────────────────────────────────
  function schedulePoll() {
    clearTimeout(pollTimer);
    if (ended || !round) return;
    let wait = null;
    if (round.status === 'placing' || round.status === 'settling') wait = 700;
    else if (round.status === 'playing' && round.act_before) {
      // Past the deadline the round is settled by its abandon rule: watch for it.
      wait = Math.max(1000, Date.parse(round.act_before) - Date.now() + 1000);
    }
    if (wait !== null) pollTimer = setTimeout(() => void poll(), Math.min(wait, 2_147_000_000));
  }
  async function poll() {
    if (busy || ended) return schedulePoll();
    try {
      const res = await api('/api/runtime/native/state');
      if (res.status === 401) return fatal(SESSION_EXPIRED);
      if (res.ok && !busy) {
        const before = round?.status;
        noteBlocked(res.json.bets_blocked);
        check.apply(res.json);
        noteCycle(res.json);
        show(res.json.round);
        if (before !== round?.status && over(round)) void refreshBalance();
        return;
      }
    } catch {}
    schedulePoll();
  }

  // ── actions ────────────────────────────────────────────────────────────────────────────────
  async function send(path, body) {
    if (busy || ended) return;
    busy = true;
    balance.hold();
    showError('');
    render();
    try {
      const res = await api(path, body);
      if (res.status === 401) return fatal(SESSION_EXPIRED);
      if (res.ok) {
        round = res.json.round;
        noteBlocked(res.json.bets_blocked);
        // A finished round ends the game cycle: GB's wait starts now (the state read corrects it).
        if (round?.status === 'completed' && boot.rules?.min_cycle_interval_ms)
          waitCycle(boot.rules.min_cycle_interval_ms);
        // A finished round moves the net position: read it again.
        if (over(round)) void refreshPlay();
      } else {
        if (res.status === 429 && res.json?.error === 'cycle_too_soon') waitCycle(res.json.retry_after_ms);
        else if (res.status === 409 && res.json?.bets_blocked) noteBlocked(res.json.bets_blocked);
        else if (res.status === 409 && res.json?.error === 'reality_check_due') check.open();
        else showError(detailOf(res));
        const state = await api('/api/runtime/native/state');
        if (state.ok) {
          round = state.json.round;
          check.apply(state.json);
        }
      }
    } catch {
      showError('The game could not be reached. Please check your connection.');
    } finally {
      busy = false;
      show(round);
      balance.release();
    }
  }

  el.play.addEventListener('click', () => {
    const body = { stake_minor: el.stake.value };
    if (family === 'mines') body.mines = Number(el.minesSelect.value);
    if (family === 'dice') {
      const t = targetHundredths();
      if (t === null) return showError('Choose a target from 1.00 to 98.00.');
      body.target = t;
    }
    void send('/api/runtime/native/bet', body);
  });
  el.cashout.addEventListener('click', () => {
    if (round) void send('/api/runtime/native/action', { round_id: round.round_id, action: 'cashout' });
  });
  for (const cell of el.cells) {
    cell.addEventListener('click', () => {
      if (round)
        void send('/api/runtime/native/action', {
          round_id: round.round_id,
          action: 'reveal',
          cell: Number(cell.dataset.cell),
        });
    });
  }
  for (const b of el.guesses) {
    b.addEventListener('click', () => {
      if (round)
        void send('/api/runtime/native/action', {
          round_id: round.round_id,
          action: 'guess',
          guess: b.dataset.guess,
        });
    });
  }
  if (el.minesSelect) el.minesSelect.addEventListener('change', render);
  if (el.diceTarget) el.diceTarget.addEventListener('input', render);
  el.close.addEventListener('click', () => {
    if (el.close.dataset.href) check.leave();
  });
  window.addEventListener('pagehide', () => {
    clearTimeout(pollTimer);
    check.stop();
  });

  /** A finished round moves the net position: the state read has it (and the schedule). */
  async function refreshPlay() {
    try {
      const res = await api('/api/runtime/native/state');
      if (res.ok && !ended) {
        check.apply(res.json);
        noteCycle(res.json);
      }
    } catch {}
  }

  // ── start: exchange the grant, then show the resumed round (if any) ─────────────────────────
  async function start() {
    if (!grant) return fatal('This game link is not valid. Please open the game again from the casino.');
    let res;
    try {
      res = await api('/api/runtime/native/session-from-grant', { grant });
    } catch {
      return fatal('The game could not be reached. Please check your connection and reload.');
    }
    if (res.status === 401) {
      return fatal(
        res.json && res.json.reason === 'invalid'
          ? 'This game link is not valid. Please open the game again from the casino.'
          : 'This game link has expired. Please open the game again from the casino.',
      );
    }
    if (!res.ok) return fatal('The game could not start. Please try again later.');
    boot = res.json;
    token = boot.token;
    // The history panel (shared history.js) reads the player's rounds with this token.
    if (window.GameHistory) window.GameHistory.useToken(token);
    money = moneyFormat(
      boot.session.currency,
      boot.session.exponent,
      boot.session.lang,
      boot.session.display,
    );
    const ret = boot.session.return_url ? new URL(boot.session.return_url, window.location.href) : null;
    if (ret && (ret.protocol === 'https:' || ret.protocol === 'http:')) {
      el.close.dataset.href = ret.href;
      el.close.hidden = false;
      el.close.disabled = false;
    }
    el.stake.replaceChildren(
      ...boot.stakes_minor.map((m) => {
        const o = document.createElement('option');
        o.value = m;
        o.textContent = money.minor(m);
        return o;
      }),
    );
    el.stake.value = boot.default_stake_minor;
    if (family === 'mines') {
      const opts = [];
      for (let n = boot.mines.min; n <= boot.mines.max; n++) {
        const o = document.createElement('option');
        o.value = String(n);
        o.textContent = `${n} mine${n > 1 ? 's' : ''}`;
        opts.push(o);
      }
      el.minesSelect.replaceChildren(...opts);
      el.minesSelect.value = String(boot.mines.default);
    }
    el.lastWin.textContent = money.minor('0');
    el.lastWin.dataset.winMinor = '0';
    noteBlocked(boot.bets_blocked);
    check.apply(boot);
    noteCycle(boot);
    check.start(1000);
    const resumed = boot.round && !over(boot.round) ? boot.round : null;
    if (resumed && family === 'mines') el.minesSelect.value = String(resumed.mines.mine_count);
    if (resumed && family === 'dice') el.diceTarget.value = (resumed.dice.target / 100).toFixed(2);
    show(resumed ?? (boot.round?.abandoned ? boot.round : null));
    if (resumed) say(`Your unfinished round is back. ${el.message.textContent}`);
    await refreshBalance();
  }
  void start();
})();
