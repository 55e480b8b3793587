/**
 * Amounts in the session's display unit (issue 39; docs/currencies.md "Display units"): mBTC,
 * µBTC, sat, gwei, USDT ... Digit work on the decimal strings of minor units the server sends:
 * never a division, a rounding or a float. `display` is the session read's `display`
 * ({unit, label, precision, digits, crypto}): `digits` fraction digits are exact, `precision` of
 * them always shown, the rest only when not zero. `window.UnitMoney.create(display)`.
 */
(() => {
  function create(display) {
    const label = String(display.label);
    const precision = Number(display.precision) | 0;
    const digits = Number(display.digits) | 0;
    /** '123456' (minor units) -> '1.23456' in the unit (mBTC of BTC: 5 digits, 2 always shown); null if not an integer. */
    function decimal(minor) {
      const s = String(minor);
      if (!/^-?[0-9]+$/.test(s)) return null;
      const negative = s.startsWith('-');
      const d = (negative ? s.slice(1) : s).replace(/^0+(?=[0-9])/, '');
      let whole = d;
      let fraction = '';
      if (digits > 0) {
        const padded = d.padStart(digits + 1, '0');
        whole = padded.slice(0, padded.length - digits);
        fraction = padded.slice(padded.length - digits);
      }
      let keep = fraction.length;
      while (keep > precision && fraction[keep - 1] === '0') keep--;
      fraction = fraction.slice(0, keep);
      const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
      const zero = /^0*$/.test(d);
      return `${negative && !zero ? '-' : ''}${grouped}${fraction ? `.${fraction}` : ''}`;
    }
    return {
      label,
      decimal,
      /** '100000' (minor units of BTC) -> 'mBTC 1.00'. */
      format(minor) {
        const text = decimal(minor);
        return `${label} ${text === null ? String(minor) : text}`;
      },
    };
  }
  /** Whether the page shows `display` itself (a crypto currency or a unit other than the currency). */
  function applies(display, currency) {
    return Boolean(display && (display.crypto || display.unit !== currency || display.label !== currency));
  }
  window.UnitMoney = { create, applies };
})();
