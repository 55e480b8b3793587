// The player's history panel of every game page (slot, native, crash): plain browser JavaScript,
// served as written beside each page's own script and included before it (both deferred). It owns
// the `history-button` in the page's bar and the `history-panel` dialog: the player's rounds of
// the last 90 days with this operator (GET /api/runtime/history), this game or all games, in pages
// ("More"), each linking to its replay page in a new tab. It reads the list when opened, and again
// while open whenever the page's balance or last win changes (a round has ended).
//
// The runtime token is the page's own: the slot page's `mgckey` (its URL), the crash page's
// session token (this tab's sessionStorage, where crash.js keeps it), or the native page's play
// token, which native.js hands over with `GameHistory.useToken(token)`. Play-money (demo) pages
// have no history. DOM updates use createElement, textContent and attributes only (the pages' CSP
// enforces Trusted Types).
window.GameHistory = (() => {
  const byId = (id) => document.querySelector(`[data-testid="${id}"]`);
  const el = {
    game: byId('game'),
    open: byId('history-button'),
    panel: byId('history-panel'),
    close: byId('history-close'),
    status: byId('history-status'),
    list: byId('history-list'),
    more: byId('history-more'),
    scopes: [...document.querySelectorAll('.history-scope [data-scope]')],
  };
  const lang = document.documentElement.lang || 'en';
  const PAGE = 20;
  const STATUS = {
    completed: 'Settled',
    open: 'Pending',
    settling: 'Pending',
    rejected: 'Refused',
    cancelled: 'Cancelled',
    rolled_back: 'Rolled back',
  };
  let given = null;
  let scope = 'title';
  let next = null;
  /** Each load's number: an answer for an older load (scope changed, reopened) is dropped. */
  let epoch = 0;
  let refreshTimer = null;
  // The replay links of a read are share links that expire (replay_expires_at, ten minutes):
  // while the panel stays open, the list is read again a minute before they do.
  let expiryTimer = null;

  function token() {
    if (given) return given;
    const mgckey = new URLSearchParams(window.location.search).get('mgckey');
    if (mgckey) return mgckey;
    const slug = el.game?.dataset.slug;
    if (slug && el.game.dataset.mode !== 'demo') {
      try {
        return sessionStorage.getItem(`crash:session:${slug}`);
      } catch {
        return null;
      }
    }
    return null;
  }

  function money(decimal, currency) {
    const fraction = (decimal.split('.')[1] || '').length;
    try {
      return new Intl.NumberFormat(lang, {
        style: 'currency',
        currency,
        // As the game pages show money: the code, not a symbol ("EUR 1.00").
        currencyDisplay: 'code',
        minimumFractionDigits: fraction,
        maximumFractionDigits: fraction,
        // The decimal string itself, never a Number (a float): Intl formats strings exactly.
      }).format(decimal);
    } catch {
      return `${currency} ${decimal}`;
    }
  }

  function when(iso) {
    const d = new Date(iso);
    try {
      return d.toLocaleString(lang, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
    } catch {
      return d.toISOString();
    }
  }

  function part(cls, label, value, testid) {
    const span = document.createElement('span');
    span.className = cls;
    if (testid) span.dataset.testid = testid;
    if (label) {
      const l = document.createElement('span');
      l.className = 'history-label';
      l.textContent = label;
      span.append(l, ' ');
    }
    const v = document.createElement('span');
    v.textContent = value;
    span.append(v);
    return span;
  }

  function item(r) {
    const li = document.createElement('li');
    li.className = 'history-item';
    li.dataset.testid = 'history-item';
    li.dataset.roundId = r.round_id;
    li.dataset.status = r.status;
    li.dataset.stakeMinor = r.stake_minor;
    li.dataset.winMinor = r.win_minor;
    li.dataset.symbol = r.symbol;
    const a = document.createElement('a');
    a.className = 'history-link';
    a.dataset.testid = 'history-replay';
    a.href = r.replay_url;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    const time = document.createElement('time');
    time.className = 'history-when';
    time.dateTime = r.created_at;
    time.textContent = when(r.created_at);
    const top = document.createElement('span');
    top.className = 'history-top';
    top.append(time);
    if (scope === 'all') top.append(part('history-title', '', r.title));
    const status = part('history-status-text', '', STATUS[r.status] || r.status, 'history-item-status');
    status.dataset.status = r.status;
    top.append(status);
    const figures = document.createElement('span');
    figures.className = 'history-figures';
    // Crypto currencies and display units (issue 39): the server's exact text (`mBTC 1.00`).
    const shown = r.shown;
    const stake = r.free_round
      ? `Free round (${shown ? shown.free_round_stake || shown.stake : money(minorText(r.free_round_stake_minor, r.stake), r.currency)})`
      : shown
        ? shown.stake
        : money(r.stake, r.currency);
    figures.append(
      part('history-stake', 'Stake', stake, 'history-item-stake'),
      part('history-win', 'Win', shown ? shown.win : money(r.win, r.currency), 'history-item-win'),
    );
    const replay = document.createElement('span');
    replay.className = 'history-replay-text';
    replay.textContent = 'Replay';
    a.append(top, figures, replay);
    a.setAttribute('aria-label', `Replay of the round of ${time.textContent}`);
    li.append(a);
    return li;
  }

  /** A free round's stake in the currency's decimals, given the paid stake's decimal shape. */
  function minorText(minor, shape) {
    if (minor === null || minor === undefined) return shape;
    const exponent = (shape.split('.')[1] || '').length;
    if (!exponent) return String(minor);
    const digits = String(minor).padStart(exponent + 1, '0');
    return `${digits.slice(0, digits.length - exponent)}.${digits.slice(digits.length - exponent)}`;
  }

  async function load(append) {
    const t = token();
    const mine = ++epoch;
    if (!t) {
      el.status.textContent = 'Your rounds cannot be shown here.';
      el.more.hidden = true;
      return;
    }
    const q = new URLSearchParams({ scope, limit: String(PAGE) });
    if (append && next) q.set('before', next);
    el.panel.dataset.loading = 'true';
    el.more.disabled = true;
    if (!append) el.status.textContent = 'Loading…';
    let res;
    let json = null;
    try {
      res = await fetch(`/api/runtime/history?${q}`, {
        headers: { accept: 'application/json', 'x-session-token': t },
        credentials: 'omit',
        cache: 'no-store',
        referrerPolicy: 'no-referrer',
      });
      json = await res.json().catch(() => null);
    } catch {
      if (mine !== epoch) return;
      el.status.textContent = 'Your rounds could not be loaded. Please check your connection.';
      el.panel.dataset.loading = 'false';
      el.more.disabled = false;
      return;
    }
    if (mine !== epoch) return;
    el.panel.dataset.loading = 'false';
    el.more.disabled = false;
    if (!res.ok || !json) {
      el.status.textContent =
        res.status === 401
          ? 'This game session has ended: your rounds are shown in the casino’s history.'
          : 'Your rounds could not be loaded. Please try again.';
      el.more.hidden = true;
      return;
    }
    const items = json.rounds.map(item);
    if (append) el.list.append(...items);
    else el.list.replaceChildren(...items);
    next = json.next_before;
    el.more.hidden = !next;
    const shown = el.list.children.length;
    el.status.textContent = shown
      ? ''
      : scope === 'title'
        ? 'No rounds of this game in the last 90 days.'
        : 'No rounds in the last 90 days.';
    el.panel.dataset.loaded = String(Date.now());
    el.panel.dataset.count = String(shown);
    if (!append) scheduleExpiry(json.replay_expires_at);
  }

  /** Reads the first page again shortly before this read's replay links expire (panel open). */
  function scheduleExpiry(expiresAt) {
    clearTimeout(expiryTimer);
    const at = Date.parse(expiresAt);
    if (!Number.isFinite(at)) return;
    expiryTimer = setTimeout(
      () => {
        if (!el.panel.hidden) void load(false);
      },
      Math.max(5_000, at - Date.now() - 60_000),
    );
  }

  function open() {
    if (!el.panel.hidden) return;
    el.panel.hidden = false;
    el.open.setAttribute('aria-expanded', 'true');
    el.close.focus();
    void load(false);
  }
  function close() {
    if (el.panel.hidden) return;
    el.panel.hidden = true;
    epoch++;
    clearTimeout(refreshTimer);
    clearTimeout(expiryTimer);
    el.open.setAttribute('aria-expanded', 'false');
    el.open.focus();
  }
  function setScope(value) {
    if (value === scope) return;
    scope = value;
    for (const b of el.scopes) b.setAttribute('aria-pressed', String(b.dataset.scope === scope));
    next = null;
    el.list.replaceChildren();
    void load(false);
  }
  /** A round has ended (the page's balance or last win changed): read the first page again. */
  function roundEnded() {
    if (el.panel.hidden) return;
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => {
      if (!el.panel.hidden) void load(false);
    }, 300);
  }
  /** The button shows once the page is ready with a player's session (not a demo, not an error). */
  function showButton() {
    if (!el.game || el.game.dataset.mode === 'demo') return;
    const state = el.game.dataset.state;
    if (state === 'ready' && token()) el.open.hidden = false;
  }

  if (el.open && el.panel) {
    el.open.addEventListener('click', open);
    el.close.addEventListener('click', close);
    el.more.addEventListener('click', () => void load(true));
    for (const b of el.scopes) b.addEventListener('click', () => setScope(b.dataset.scope));
    el.panel.addEventListener('click', (e) => {
      if (e.target === el.panel) close();
    });
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') close();
    });
    if (el.game) {
      new MutationObserver(showButton).observe(el.game, {
        attributes: true,
        attributeFilter: ['data-state'],
      });
    }
    const watch = ['game-balance', 'last-win'].map(byId).filter(Boolean);
    const observer = new MutationObserver(roundEnded);
    for (const node of watch)
      observer.observe(node, { attributes: true, childList: true, characterData: true, subtree: true });
    showButton();
  }

  return {
    /** The native page's play token (it exists only in native.js's memory). */
    useToken(t) {
      given = t;
      showButton();
    },
    open,
    close,
    refresh: roundEnded,
  };
})();
