// The session bar and reality check of every game page (slot, native, crash): plain browser
// JavaScript, served as written beside each page's own script and included before it (both
// deferred, so they run in that order). It owns `session-elapsed`, `session-net` and the
// `reality-check` dialog: the server's play facts read onto the local clock, the h:mm:ss and
// net-position text, the pause, and the continue / leave answers (POST /api/runtime/reality-check).
// The page's own script decides when a pause may open, what it disables, and how it calls the
// runtime. DOM updates use textContent and attributes only (the pages' CSP enforces Trusted Types).
window.RealityCheck = (() => {
  const byId = (id) => document.querySelector(`[data-testid="${id}"]`);

  function formatElapsed(ms) {
    const total = Math.max(0, Math.floor(ms / 1000));
    const h = Math.floor(total / 3600);
    const m = String(Math.floor((total % 3600) / 60)).padStart(2, '0');
    const sec = String(total % 60).padStart(2, '0');
    return `${h}:${m}:${sec}`;
  }

  /**
   * The page's part:
   * - formatMoney(minor): the session currency's text (called once the page has read its session);
   * - post(action): POST /api/runtime/reality-check {action}, answering {ok, status, json} (a 401
   *   is the page's to handle: it ends the page);
   * - reread(): reads the page's state again, which passes its facts to apply();
   * - isEnded(): the page has ended (no more ticks, no pause);
   * - canOpen(): optional, false while the pause must wait (the next tick opens it);
   * - render(): the page enables or disables its controls (isOpen() says whether paused);
   * - failed(): the answer did not reach the server;
   * - fatal(text): ends the page with a message;
   * - beforeLeave(): optional, stops the page's polls and streams before it leaves.
   */
  function create(page) {
    const el = {
      game: byId('game'),
      close: byId('close-button'),
      elapsed: byId('session-elapsed'),
      net: byId('session-net'),
      check: byId('reality-check'),
      text: byId('reality-check-text'),
      continue: byId('reality-check-continue'),
      leave: byId('reality-check-leave'),
    };
    /** Local clock minus the server's: the server's times read on this clock. */
    let skewMs = 0;
    let playStartedAt = 0;
    let netMinor = '0';
    /** When the next reality check is due (local clock), or null: none. */
    let dueAt = null;
    let open = false;
    let timer = null;

    function showNet(minor) {
      netMinor = minor;
      el.net.dataset.netMinor = minor;
      el.net.textContent = page.formatMoney(minor);
    }
    /** Reads the server's facts (a state read or a reality-check answer) onto the local clock. */
    function apply(facts) {
      if (!facts) return;
      if (facts.play) {
        const serverNow = Date.parse(facts.play.started_at) + facts.play.elapsed_ms;
        skewMs = Date.now() - serverNow;
        playStartedAt = Date.parse(facts.play.started_at) + skewMs;
        showNet(facts.play.net_minor);
      }
      if ('reality_check' in facts) {
        const rc = facts.reality_check;
        dueAt = rc ? (rc.due ? Date.now() : Date.parse(rc.due_at) + skewMs) : null;
      }
      tick();
    }
    function tick() {
      if (page.isEnded() || !playStartedAt) return;
      const ms = Date.now() - playStartedAt;
      el.elapsed.dataset.elapsedMs = String(ms);
      el.elapsed.textContent = formatElapsed(ms);
      if (dueAt !== null && !open && Date.now() >= dueAt) openCheck();
    }
    /** The pause: time played and net position; the page keeps play disabled until the answer. */
    function openCheck() {
      if (page.isEnded() || open) return;
      if (page.canOpen && !page.canOpen()) return;
      open = true;
      const ms = playStartedAt ? Date.now() - playStartedAt : 0;
      el.text.textContent = `You have been playing for ${formatElapsed(ms)}. Your net position in this session is ${page.formatMoney(netMinor)}.`;
      el.check.hidden = false;
      el.game.dataset.realityCheck = 'open';
      page.render();
      el.continue.focus();
    }
    async function answer(action) {
      el.continue.disabled = true;
      el.leave.disabled = true;
      try {
        const res = await page.post(action);
        if (page.isEnded()) return;
        if (action === 'leave') return leave();
        if (res.ok) apply(res.json);
        else {
          // Not due on the server's clock yet: read the schedule again.
          await page.reread();
          if (dueAt !== null && dueAt <= Date.now()) dueAt = Date.now() + 1000;
        }
        open = false;
        el.check.hidden = true;
        el.game.dataset.realityCheck = 'answered';
        page.render();
      } catch {
        if (!page.isEnded()) page.failed();
      } finally {
        el.continue.disabled = false;
        el.leave.disabled = false;
      }
    }
    /** Leaves the game: to the operator's return_url (the close button's), else the page ends. */
    function leave() {
      const href = el.close.dataset.href;
      if (page.beforeLeave) page.beforeLeave();
      if (!href) return page.fatal('You have left the game.');
      stop();
      try {
        window.top.location.href = href;
      } catch {
        window.location.href = href;
      }
    }
    /** Ticks the time played every `ms` (the due check rides on it). */
    function start(ms) {
      stop();
      tick();
      timer = setInterval(tick, ms);
    }
    function stop() {
      clearInterval(timer);
      timer = null;
    }

    el.continue.addEventListener('click', () => void answer('continue'));
    el.leave.addEventListener('click', () => void answer('leave'));
    return {
      apply,
      showNet,
      net: () => netMinor,
      isOpen: () => open,
      open: openCheck,
      leave,
      start,
      stop,
    };
  }

  /**
   * GB's game cycle (a page with bets: native, crash): no bet within `wait_ms` of a cycle's end
   * (the server's `next_cycle`, or its 429 `cycle_too_soon`'s `retry_after_ms`). `render()` is
   * called every 250 ms while the wait lasts, so the page's bet button can count down.
   */
  function gameCycle(render) {
    let until = 0;
    let timer = null;
    const waiting = () => until > Date.now();
    function wait(ms) {
      if (!(ms > 0)) return;
      until = Math.max(until, Date.now() + ms);
      clearInterval(timer);
      timer = setInterval(() => {
        if (!waiting()) clearInterval(timer);
        render();
      }, 250);
    }
    return {
      wait,
      waiting,
      /** A state read's or a bet's answer: its `next_cycle`, if any, starts the wait. */
      note: (json) => {
        if (json?.next_cycle && json.next_cycle.wait_ms > 0) wait(json.next_cycle.wait_ms);
      },
      /** Whole seconds left, rounded up. */
      secondsLeft: () => Math.ceil((until - Date.now()) / 1000),
    };
  }

  return { create, formatElapsed, gameCycle };
})();
