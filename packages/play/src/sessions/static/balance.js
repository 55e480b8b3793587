// The balance keeper every game page shares (slot, native, crash): plain browser JavaScript,
// served as written beside the page's own script. One rule, in one place: the page ends on the
// newest balance the wallet gave, whatever the order in which a money action's answer, a
// balance-refresh signal and the page's own balance reads arrive.
//
//  - While a money action is open (`hold()`: a spin, a bet, a cash-out, a round the page follows),
//    no balance read is shown and none is sent: a read asked for meanwhile (a refresh signal, a
//    reconnect) waits, and one read runs once the action is over (`release()`), after the action's
//    own balance is shown (`answer()`). A read already in flight when the action opened is read again
//    then, too.
//  - A read that answers after a newer balance was shown (an action's answer, another read) is not
//    shown: the wallet is read once more, so a read dropped for being old is never simply lost.
//  - One read at a time; a request during a read runs once more after it.
(() => {
  /**
   * @param {{ read: () => Promise<string|null|undefined>, show: (value: string) => void,
   *           isEnded?: () => boolean }} options
   *   read: one read of the wallet's balance (null when it failed; the page says why);
   *   show: puts a balance on the page (a read's or an action's answer).
   */
  function create(options) {
    const isEnded = options.isEnded ?? (() => false);
    /** Bumped whenever a balance is shown, so a read that began before it knows it is older. */
    let shown = 0;
    let holds = 0;
    /** A read was asked for (or dropped) while an action was open: run one when it ends. */
    let readAfter = false;
    let reading = null;
    let again = false;

    function display(value) {
      shown++;
      options.show(value);
    }

    function refresh() {
      if (isEnded()) return Promise.resolve();
      if (holds > 0) {
        readAfter = true;
        return Promise.resolve();
      }
      if (reading) {
        again = true;
        return reading;
      }
      reading = (async () => {
        try {
          do {
            again = false;
            const began = shown;
            let value = null;
            try {
              value = await options.read();
            } catch {
              value = null;
            }
            if (isEnded()) return;
            if (holds > 0) {
              // An action opened while the read was out: its answer comes first, then a read.
              readAfter = true;
              return;
            }
            if (value === null || value === undefined) continue;
            if (shown !== began) {
              // Something newer was shown meanwhile; this answer may be older: read again.
              again = true;
              continue;
            }
            display(value);
          } while (again && !isEnded());
        } finally {
          reading = null;
        }
      })();
      return reading;
    }

    return {
      /** Ask for a read of the wallet's balance (held while an action is open). */
      refresh,
      /** A money action opened: reads wait until it is over. Holds nest. */
      hold() {
        holds++;
      },
      /** The action is over (its balance shown, if it had one): a read asked for meanwhile runs now. */
      release() {
        if (holds > 0) holds--;
        if (holds === 0 && readAfter) {
          readAfter = false;
          void refresh();
        }
      },
      /** Whether an action is open. */
      held: () => holds > 0,
      /** A balance an action's answer carried (the wallet's answer to its debit or credit): shown now. */
      answer(value) {
        if (value === null || value === undefined || isEnded()) return;
        display(value);
      },
      /**
       * A read the page made itself (a state read that also carries the balance): `ticket()` before
       * sending it, `offer(ticket, value)` with its answer. Shown only if nothing newer was shown and
       * no action opened meanwhile; else the wallet is read again (after the action).
       */
      ticket: () => (holds > 0 ? -1 : shown),
      offer(ticket, value) {
        if (value === null || value === undefined || isEnded()) return;
        if (holds === 0 && ticket === shown) return display(value);
        if (holds > 0) readAfter = true;
        else void refresh();
      },
    };
  }

  window.BalanceKeeper = { create };
})();
