/**
 * Amounts in the session's display unit (issue 39; docs/currencies.md "Display units"): mBTC,
 * µBTC, sat, gwei, USDT ... Digit work on the decimal strings of minor units the server sends:
 * never a division, a rounding or a float. `display` is the session read's `display`
 * ({unit, label, precision, digits, crypto}): `digits` fraction digits are exact, `precision` of
 * them always shown, the rest only when not zero. `window.UnitMoney.create(display)`; a game
 * page's money in its session currency: `window.UnitMoney.session(...)`.
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
  /**
   * A game page's money: minor-unit strings of the session's currency at its exponent, shown in
   * its display unit when `applies(display, currency)`, else in the language's currency format
   * ('en' when the language has none; `CUR 1.23` when Intl knows no such currency).
   * `window.UnitMoney.session(currency, exponent, lang, display)`.
   */
  function session(currency, exponent, lang, display) {
    const unit = applies(display, currency) ? create(display) : null;
    const options = {
      style: 'currency',
      currency,
      currencyDisplay: 'code',
      minimumFractionDigits: exponent,
      maximumFractionDigits: exponent,
    };
    let nf = null;
    for (const tag of [lang || 'en', 'en']) {
      try {
        nf = new Intl.NumberFormat(tag, options);
        break;
      } catch {}
    }
    const toDecimal = (minor) => {
      const negative = minor.startsWith('-');
      const digits = negative ? minor.slice(1) : minor;
      if (exponent === 0) return minor;
      const padded = digits.padStart(exponent + 1, '0');
      return `${negative ? '-' : ''}${padded.slice(0, -exponent)}.${padded.slice(-exponent)}`;
    };
    /** A decimal string of the currency ('123.45') in its currency format. */
    const showDecimal = (decimal) => {
      try {
        if (nf) return nf.format(decimal);
      } catch {}
      return `${currency} ${decimal}`;
    };
    return {
      /** The display unit (`create(display)`), or null when the currency format is used. */
      unit,
      showDecimal,
      /** '12345' (minor units) -> 'EUR 123.45' (or the unit's text); strings are formatted exactly. */
      format(minor) {
        if (unit) return unit.format(String(minor));
        return showDecimal(toDecimal(String(minor)));
      },
      /** The wallet's decimal string ('123.45') -> minor units ('12345'), or null if malformed. */
      toMinor(decimal) {
        const m = /^(-?)([0-9]+)(?:\.([0-9]+))?$/.exec(String(decimal));
        if (!m) return null;
        let fraction = m[3] || '';
        while (fraction.length > exponent && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
        if (fraction.length > exponent) return null;
        const digits = (m[2] + fraction.padEnd(exponent, '0')).replace(/^0+(?=[0-9])/, '');
        return (m[1] === '-' && /[1-9]/.test(digits) ? '-' : '') + digits;
      },
    };
  }
  window.UnitMoney = { create, applies, session };
})();
