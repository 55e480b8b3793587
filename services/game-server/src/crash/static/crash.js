// The crash page's script: plain browser JavaScript, served as written from /games/assets/.
// Launch mode: it exchanges the URL's `login` grant (5 minutes) for the page's session token
// (one hour) once, removes the grant from the address bar and keeps the token in this tab's
// sessionStorage, so a reload resumes. Demo mode: a play-money session. The token travels only in
// the `x-session-token` header of same-origin calls. The server times every round: the page
// animates the multiplier from the round's start on the server clock and learns the crash from the
// server. DOM updates use textContent and attributes only (the CSP enforces Trusted Types).
(() => {
  const byId = (id) => document.querySelector(`[data-testid="${id}"]`);
  const el = {
    game: byId('game'),
    balance: byId('game-balance'),
    lastWin: byId('last-win'),
    stake: byId('stake-select'),
    auto: byId('auto-cashout'),
    bet: byId('bet-button'),
    cashout: byId('cashout-button'),
    multiplier: byId('multiplier'),
    message: byId('game-message'),
    error: byId('game-error'),
    close: byId('close-button'),
    commitment: byId('commitment'),
    nonce: byId('nonce'),
    terminal: byId('chain-terminal'),
    clientSeed: byId('client-seed'),
    roundId: byId('round-id'),
    crashPoint: byId('crash-point'),
    revealed: byId('revealed-seed'),
  };
  const mode = el.game.dataset.mode;
  const slug = el.game.dataset.slug;
  const tokenKey = `crash:${mode === 'demo' ? 'demo' : 'session'}:${slug}`;
  const seedKey = `crash:client-seed:${slug}`;

  let token = null;
  let state = null;
  let money = null;
  let round = null;
  let clockOffset = 0;
  let frame = 0;
  let ended = false;
  let betting = false;
  /** Player protection: the operator's wallet stopped this session's bets (until a relaunch). */
  let blocked = null;
  let cashingOut = false;
  // ── GB: 5 s between the end of a game cycle and the next bet (the state read's next_cycle and
  // the bet's 429 cycle_too_soon); the bet button stays disabled with a countdown until then ──
  // (the shared reality-check.js's gameCycle)
  const cycle = window.RealityCheck.gameCycle(() => controls());
  const betLabel = el.bet.textContent;
  const { waiting: cycleWaiting, wait: waitCycle, note: noteCycle } = cycle;
  // ── jurisdiction rules: time played, net position and the reality check (shared script
  // reality-check.js, fed by the state read's play and reality_check; null on demo). The pause
  // stops new bets; a round already running goes on under it (its cash-out answers the player's
  // earlier choice: auto cash-out, or the crash), so the check opens once that round has ended.
  const check = window.RealityCheck.create({
    formatMoney: (minor) => money.format(minor),
    post: (action) => api('POST', '/api/runtime/reality-check', { action }),
    reread: () => refresh(),
    isEnded: () => ended,
    canOpen: () => !(round && (round.state === 'running' || round.state === 'debiting')),
    render: () => controls(),
    failed: () => say('The game could not be reached. Please check your connection.'),
    fatal: (text) => fatal(text),
  });

  const multiplierText = (cents) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}×`;

  // ── messages ─────────────────────────────────────────────────────────────────────────────────
  function say(text) {
    el.message.textContent = text;
  }
  /** The server's text for the wallet's refusal code; an unknown code still names the code. */
  function showRefusal(code, message) {
    el.error.textContent =
      typeof message === 'string' && message
        ? message
        : `Your operator declined this bet (${code || 'rejected'}).`;
    el.error.hidden = false;
  }
  /**
   * Player protection: the operator's wallet refused a debit with a code that stops this session's
   * bets (self-exclusion, a session time limit, a blocked account). Its message stays and the bet
   * controls stay disabled until the operator launches the game again.
   */
  function noteBlocked(b) {
    if (!b) return;
    blocked = b;
    el.game.dataset.betsBlocked = b.code;
    showRefusal(b.code, b.message);
  }
  function fatal(text) {
    ended = true;
    cancelAnimationFrame(frame);
    check.stop();
    el.error.textContent = text;
    el.error.hidden = false;
    el.game.dataset.state = 'error';
    for (const b of [el.bet, el.cashout, el.stake, el.auto, el.clientSeed]) b.disabled = true;
  }

  // ── calls ────────────────────────────────────────────────────────────────────────────────────
  async function api(method, path, body) {
    const res = await window.PageFetch.call(path, { method, body, token });
    if (res.status === 401) {
      if (mode !== 'demo') sessionStorage.removeItem(tokenKey);
      fatal(
        mode === 'demo'
          ? 'The demo session has ended. Reload the page to play again.'
          : 'This game session has ended or was closed. Please open the game again from the casino.',
      );
      throw new Error('unauthorized');
    }
    return res;
  }

  async function obtainToken() {
    if (mode === 'launch') {
      const login = new URLSearchParams(window.location.search).get('login') || '';
      // The grant is a bearer secret: it leaves the address bar (and the history entry) at once.
      window.history.replaceState(null, '', window.location.pathname);
      const res = await fetch('/api/runtime/crash/authorize', {
        method: 'POST',
        headers: { 'x-login-grant': login },
        cache: 'no-store',
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
      const json = await res.json().catch(() => null);
      if (!res.ok || !json?.session_token) {
        fatal(
          (json && typeof json.detail === 'string' && json.detail) ||
            'This game link is not valid. Please open the game again from the casino.',
        );
        return false;
      }
      token = json.session_token;
      sessionStorage.setItem(tokenKey, token);
      return true;
    }
    token = sessionStorage.getItem(tokenKey);
    if (token) return true;
    if (mode === 'resume') {
      fatal('This game link is not valid. Please open the game again from the casino.');
      return false;
    }
    const res = await fetch('/api/runtime/crash/demo', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug }),
      cache: 'no-store',
      credentials: 'omit',
    });
    const json = await res.json().catch(() => null);
    if (!res.ok || !json) {
      fatal('The demo could not start. Please try again later.');
      return false;
    }
    token = json.session_token;
    sessionStorage.setItem(tokenKey, token);
    return true;
  }

  // ── rendering ────────────────────────────────────────────────────────────────────────────────
  function showBalance(minor) {
    el.balance.dataset.balanceMinor = String(minor);
    el.balance.textContent = money.format(String(minor));
  }
  // Shown through the shared keeper (balance.js): a bet or cash-out holds it until its answer is
  // shown, and a state read that answers after a newer balance was shown is read again.
  const balance = window.BalanceKeeper.create({
    read: async () => {
      const res = await api('GET', '/api/runtime/crash/state');
      return res.ok ? res.json.balance_minor : null;
    },
    show: showBalance,
    isEnded: () => ended,
  });
  /** A balance an answer carried (a bet's debit, a cash-out's credit); null: none. */
  const setBalance = (minor) => balance.answer(minor);

  function showFairness(next) {
    if (!next) return;
    el.commitment.textContent = next.commitment;
    el.nonce.textContent = String(next.nonce);
    el.terminal.textContent = next.terminal_hash;
  }

  function showRevealed(r) {
    if (!r) return;
    el.roundId.textContent = r.round_id;
    el.crashPoint.textContent = r.crash_point ? `${r.crash_point}×` : '—';
    el.revealed.textContent = r.fairness.server_seed || '—';
  }

  function setMultiplier(cents, phase) {
    el.multiplier.dataset.cents = String(cents);
    el.multiplier.dataset.state = phase;
    el.multiplier.textContent = multiplierText(cents);
  }

  function controls() {
    const running = round && (round.state === 'running' || round.state === 'debiting');
    const waiting = cycleWaiting();
    el.bet.disabled = ended || betting || running || !state || blocked !== null || check.isOpen() || waiting;
    el.game.dataset.cycleWait = waiting ? 'true' : 'false';
    el.bet.textContent = waiting ? `Next game in ${cycle.secondsLeft()} s` : betLabel;
    el.stake.disabled = el.bet.disabled;
    el.auto.disabled = el.bet.disabled;
    el.clientSeed.disabled = el.bet.disabled;
    const cents = Number(el.multiplier.dataset.cents);
    el.cashout.disabled =
      ended || cashingOut || !round || round.state !== 'running' || cents < 101 || !round.started_at;
    el.game.dataset.state = ended
      ? 'error'
      : running
        ? 'running'
        : betting
          ? 'betting'
          : blocked
            ? 'blocked'
            : 'ready';
  }

  function fillStakes() {
    const previous = el.stake.value;
    el.stake.replaceChildren();
    for (const minor of state.stakes_minor) {
      const o = document.createElement('option');
      o.value = minor;
      o.textContent = money.format(minor);
      el.stake.append(o);
    }
    const preferred =
      state.stakes_minor.find((s) => s === previous) ||
      state.stakes_minor.find((s) => BigInt(s) >= 100n) ||
      state.stakes_minor[0];
    if (preferred) el.stake.value = preferred;
  }

  function randomSeed() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  }

  // ── the running multiplier (server time) ─────────────────────────────────────────────────────
  function animate() {
    cancelAnimationFrame(frame);
    const k = state.curve.growth_per_ms;
    const tick = () => {
      if (round?.state !== 'running' || !round.started_at) return;
      const elapsed = Math.max(0, Date.now() + clockOffset - round.started_at);
      setMultiplier(Math.floor(100 * Math.exp(k * elapsed)), 'running');
      controls();
      frame = requestAnimationFrame(tick);
    };
    tick();
  }

  async function follow(roundId) {
    while (
      !ended &&
      round &&
      round.round_id === roundId &&
      (round.state === 'running' || round.state === 'debiting')
    ) {
      let res;
      try {
        res = await api('GET', `/api/runtime/crash/rounds/${encodeURIComponent(roundId)}?wait=1`);
      } catch {
        if (ended) return;
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      const stillOpen =
        round && round.round_id === roundId && (round.state === 'running' || round.state === 'debiting');
      if (!res.ok || !stillOpen) return;
      if (res.json.state === 'running' || res.json.state === 'debiting') {
        round = res.json;
        continue;
      }
      // A cash-out of this page answers for itself (with the credited balance).
      if (cashingOut) return;
      await finish(res.json, null);
    }
  }

  function play(r) {
    round = r;
    // The next commitment stays hidden while a round runs (it is this round's seed): show this one's.
    showFairness({
      commitment: r.fairness.commitment,
      nonce: r.fairness.nonce,
      terminal_hash: r.fairness.chain.terminal_hash,
    });
    if (r.state === 'running') {
      clockOffset = r.server_now - Date.now();
      say('');
      animate();
      void follow(r.round_id);
    } else if (r.state === 'debiting') {
      say('Waiting for the wallet…');
      void follow(r.round_id);
    }
    controls();
  }

  async function finish(r, balanceMinor) {
    cancelAnimationFrame(frame);
    round = r;
    // No celebration of a return at or below the stake (every jurisdiction): neutral wording.
    const small = r.state === 'cashed_out' && BigInt(r.win_minor || '0') <= BigInt(r.stake_minor || '0');
    if (r.state === 'cashed_out' && small) {
      setMultiplier(Number(r.cashout_multiplier.replace('.', '')), 'returned');
      say(
        `Cashed out at ${r.cashout_multiplier}×: returned ${money.format(r.win_minor || '0')} — the round crashed at ${r.crash_point}×`,
      );
    } else if (r.state === 'cashed_out') {
      setMultiplier(Number(r.cashout_multiplier.replace('.', '')), 'cashed-out');
      say(`Cashed out at ${r.cashout_multiplier}× — the round crashed at ${r.crash_point}×`);
    } else if (r.state === 'crashed') {
      setMultiplier(Number(r.crash_point.replace('.', '')), 'crashed');
      say(`Crashed at ${r.crash_point}×`);
    } else if (r.state === 'cancelled' || r.state === 'cancelling') {
      say('The round could not start and was cancelled: the stake is returned.');
    } else if (r.state === 'rejected') {
      say('The bet was not placed.');
    }
    if (r.state === 'cashed_out' || r.state === 'crashed') {
      el.lastWin.dataset.winMinor = r.win_minor || '0';
      el.lastWin.textContent = money.format(r.win_minor || '0');
      el.lastWin.dataset.celebrate = r.state === 'cashed_out' && !small ? 'true' : 'false';
      if (el.lastWin.previousElementSibling)
        el.lastWin.previousElementSibling.textContent = small ? 'Returned' : 'Last win';
    }
    showRevealed(r);
    setBalance(balanceMinor);
    controls();
    await refresh();
    if (balanceMinor === null && !r.settled) void settle(r.round_id);
  }

  /** The round ended before its credit (or cancel) landed: show the balance once it has. */
  async function settle(roundId) {
    for (let i = 0; i < 30 && !ended; i++) {
      await new Promise((r) => setTimeout(r, 500));
      let res;
      try {
        res = await api('GET', `/api/runtime/crash/rounds/${encodeURIComponent(roundId)}`);
      } catch {
        return;
      }
      if (!res.ok) return;
      if (res.json.settled) {
        if (!round || round.round_id === roundId || (round.state !== 'running' && round.state !== 'debiting'))
          await refresh();
        return;
      }
    }
  }

  async function refresh() {
    const ticket = balance.ticket();
    const res = await api('GET', '/api/runtime/crash/state');
    if (!res.ok) return;
    state = res.json;
    noteBlocked(state.bets_blocked);
    check.apply(state);
    noteCycle(state);
    balance.offer(ticket, state.balance_minor);
    showFairness(state.next);
    if (
      state.round &&
      (!round || round.round_id !== state.round.round_id || round.state !== state.round.state)
    ) {
      play(state.round);
    } else if (!state.round && round && (round.state === 'running' || round.state === 'debiting')) {
      round = null;
    }
    controls();
  }

  // ── actions ──────────────────────────────────────────────────────────────────────────────────
  async function bet() {
    if (el.bet.disabled) return;
    const seed = el.clientSeed.value.trim();
    if (!/^[\x21-\x7e]{1,64}$/.test(seed)) {
      say('The client seed is 1 to 64 printable characters without spaces.');
      return;
    }
    sessionStorage.setItem(seedKey, seed);
    betting = true;
    balance.hold();
    el.error.hidden = true;
    say('Placing the bet…');
    setMultiplier(100, 'idle');
    controls();
    let res;
    try {
      res = await api('POST', '/api/runtime/crash/bet', {
        stake_minor: el.stake.value,
        client_seed: seed,
        commitment: state.next.commitment,
        auto_cashout: el.auto.value.trim() || null,
      });
    } catch {
      betting = false;
      balance.release();
      if (!ended) say('The bet could not be sent. Please check your connection.');
      controls();
      return;
    }
    betting = false;
    if (res.ok) setBalance(res.json.balance_minor);
    balance.release();
    if (!res.ok) {
      const detail = res.json?.detail;
      if (res.status === 409 && res.json?.bets_blocked) {
        noteBlocked(res.json.bets_blocked);
        say('');
      } else if (res.status === 409 && res.json?.error === 'reality_check_due') {
        say('');
        check.open();
      } else if (res.status === 429 && res.json?.error === 'cycle_too_soon') {
        say('');
        waitCycle(res.json.retry_after_ms);
      } else say(typeof detail === 'string' ? detail : 'The bet was not accepted.');
      if (res.json?.next) showFairness(res.json.next);
      await refresh();
      return;
    }
    if (res.json.round.state === 'running' || res.json.round.state === 'debiting') play(res.json.round);
    else {
      if (res.json.round.state === 'rejected') {
        el.game.dataset.rejected = res.json.error || 'rejected';
        showRefusal(res.json.error, res.json.error_message);
        noteBlocked(res.json.bets_blocked);
      }
      await finish(res.json.round, res.json.balance_minor);
    }
  }

  async function cashout() {
    if (el.cashout.disabled || !round) return;
    cashingOut = true;
    balance.hold();
    controls();
    let res;
    try {
      res = await api('POST', '/api/runtime/crash/cashout', { round_id: round.round_id });
    } catch {
      cashingOut = false;
      balance.release();
      controls();
      return;
    }
    cashingOut = false;
    if (res.ok) setBalance(res.json.balance_minor);
    balance.release();
    if (!res.ok) {
      const detail = res.json?.detail;
      if (typeof detail === 'string') say(detail);
      controls();
      return;
    }
    await finish(res.json.round, res.json.balance_minor);
  }

  async function start() {
    if (!(await obtainToken())) return;
    let res;
    try {
      res = await api('GET', '/api/runtime/crash/state');
    } catch {
      if (!ended) fatal('The game could not be reached. Please check your connection and reload.');
      return;
    }
    if (!res.ok) return fatal('The game could not start. Please try again later.');
    state = res.json;
    // Exact decimal strings at the currency's exponent, or the display unit (the shared money.js).
    money = window.UnitMoney.session(state.currency, state.currency_exponent, null, state.display);
    noteBlocked(state.bets_blocked);
    if (state.return_url) {
      const ret = new URL(state.return_url, window.location.href);
      if (ret.protocol === 'https:' || ret.protocol === 'http:') {
        el.close.dataset.href = ret.href;
        el.close.hidden = false;
        el.close.disabled = false;
      }
    }
    if (state.stakes_minor.length === 0) return fatal("No stake of this game fits the casino's bet limits.");
    fillStakes();
    el.clientSeed.value = sessionStorage.getItem(seedKey) || randomSeed();
    el.lastWin.dataset.winMinor = '0';
    el.lastWin.textContent = money.format('0');
    setBalance(state.balance_minor);
    if (state.balance_error) say(state.balance_error);
    showFairness(state.next);
    if (state.last_round) showRevealed(state.last_round);
    if (state.round) play(state.round);
    check.apply(state);
    noteCycle(state);
    if (state.play) check.start(1000);
    controls();
  }

  el.bet.addEventListener('click', () => void bet());
  el.cashout.addEventListener('click', () => void cashout());
  el.close.addEventListener('click', () => {
    if (el.close.dataset.href) check.leave();
  });
  void start();
})();
