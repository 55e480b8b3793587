// The replay page's script (same origin, no inline code, Trusted Types: text only, never HTML).
// The page itself is server-rendered from the stored round; this script
//  1. marks slot cells whose symbol art loaded (the name stays as text for screen readers and as
//     the visible fallback where the art is missing), and
//  2. for a crash round, re-runs the fairness verification in the browser from the page's data
//     block: SHA-256 of the revealed server seed is the commitment shown before the bet, hashing it
//     `nonce` times reaches the chain's published terminal hash, and HMAC-SHA256(server seed,
//     "<client seed>:<nonce>") gives the recorded crash point (scheme crash-v1,
//     packages/games/src/crash/fairness.ts). SHA-256 is computed here in JavaScript, because
//     SubtleCrypto exists only in secure contexts and a replay link may be opened over plain HTTP
//     in a test or staging set-up.

(() => {
  // ── symbol art ──────────────────────────────────────────────────────────────────────────────
  function markArt(img) {
    const cell = img.closest('.cell');
    if (!cell) return;
    if (img.complete && img.naturalWidth > 0) cell.classList.add('has-art');
    else if (img.complete) cell.classList.add('no-art');
  }
  for (const img of document.querySelectorAll('.cell img')) {
    if (img.complete) markArt(img);
    else {
      img.addEventListener('load', () => markArt(img));
      img.addEventListener('error', () => markArt(img));
    }
  }

  // ── SHA-256 and HMAC-SHA256 (FIPS 180-4, RFC 2104) ──────────────────────────────────────────
  const K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));

  function sha256(bytes) {
    const bitLen = bytes.length * 8;
    const padded = new Uint8Array((((bytes.length + 9 + 63) >> 6) << 6) >>> 0);
    padded.set(bytes);
    padded[bytes.length] = 0x80;
    const view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(bitLen / 0x100000000));
    view.setUint32(padded.length - 4, bitLen >>> 0);
    const h = new Uint32Array([
      0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]);
    const w = new Uint32Array(64);
    for (let off = 0; off < padded.length; off += 64) {
      for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
      for (let i = 16; i < 64; i++) {
        const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
        const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
      }
      let [a, b, c, d, e, f, g, hh] = h;
      for (let i = 0; i < 64; i++) {
        const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        const ch = (e & f) ^ (~e & g);
        const t1 = (hh + S1 + ch + K[i] + w[i]) >>> 0;
        const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        const maj = (a & b) ^ (a & c) ^ (b & c);
        const t2 = (S0 + maj) >>> 0;
        hh = g;
        g = f;
        f = e;
        e = (d + t1) >>> 0;
        d = c;
        c = b;
        b = a;
        a = (t1 + t2) >>> 0;
      }
      h[0] = (h[0] + a) >>> 0;
      h[1] = (h[1] + b) >>> 0;
      h[2] = (h[2] + c) >>> 0;
      h[3] = (h[3] + d) >>> 0;
      h[4] = (h[4] + e) >>> 0;
      h[5] = (h[5] + f) >>> 0;
      h[6] = (h[6] + g) >>> 0;
      h[7] = (h[7] + hh) >>> 0;
    }
    const out = new Uint8Array(32);
    const ov = new DataView(out.buffer);
    for (let i = 0; i < 8; i++) ov.setUint32(i * 4, h[i]);
    return out;
  }

  const ascii = (s) => new TextEncoder().encode(s);
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

  function hmacSha256(key, message) {
    let k = key.length > 64 ? sha256(key) : key;
    const block = new Uint8Array(64);
    block.set(k);
    k = block;
    const inner = new Uint8Array(64 + message.length);
    const outer = new Uint8Array(64 + 32);
    for (let i = 0; i < 64; i++) {
      inner[i] = k[i] ^ 0x36;
      outer[i] = k[i] ^ 0x5c;
    }
    inner.set(message, 64);
    outer.set(sha256(inner), 64);
    return sha256(outer);
  }

  // ── crash-v1 ───────────────────────────────────────────────────────────────────────────────
  const HEX64 = /^[0-9a-f]{64}$/;
  const CLIENT_SEED = /^[\x21-\x7e]{1,64}$/;
  const TWO_52 = 2n ** 52n;
  const CAP_CENTS = 1000000n;

  function rtpBasisPoints(rtp) {
    const m = /^([0-9]{1,3})\.([0-9]{2})$/.exec(rtp);
    if (!m) return null;
    const bp = Number(m[1]) * 100 + Number(m[2]);
    return bp > 0 && bp < 10000 ? bp : null;
  }
  function parseMultiplier(text) {
    const m = /^([0-9]{1,7})(?:\.([0-9]{1,2}))?$/.exec(String(text ?? '').trim());
    return m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : null;
  }
  const formatMultiplier = (cents) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

  function crashPointCents(seed, clientSeed, nonce, rtpBp) {
    const h = hex(hmacSha256(ascii(seed), ascii(`${clientSeed}:${nonce}`)));
    const r = BigInt(`0x${h.slice(0, 13)}`);
    const raw = (BigInt(rtpBp) * TWO_52) / (100n * (TWO_52 - r));
    if (raw < 100n) return 100;
    if (raw > CAP_CENTS) return Number(CAP_CENTS);
    return Number(raw);
  }

  function verify(rec) {
    const checks = [];
    const check = (ok, what) => {
      checks.push({ ok, what });
      return ok;
    };
    check(rec.scheme === 'crash-v1', `scheme ${rec.scheme} is crash-v1`);
    const seed = rec.server_seed;
    if (!check(typeof seed === 'string' && HEX64.test(seed), 'the server seed is revealed')) {
      return { ok: false, checks };
    }
    check(
      hex(sha256(ascii(seed))) === rec.commitment,
      'SHA-256(server seed) is the commitment shown before the bet',
    );
    let link = seed;
    const nonce = rec.nonce;
    const inChain = Number.isSafeInteger(nonce) && nonce >= 1 && nonce <= rec.chain.length;
    if (inChain) for (let i = 0; i < nonce; i++) link = hex(sha256(ascii(link)));
    check(
      inChain && link === rec.chain.terminal_hash,
      `hashing the server seed ${nonce} time(s) gives the chain's terminal hash`,
    );
    const bp = rtpBasisPoints(rec.rtp);
    if (check(CLIENT_SEED.test(rec.client_seed) && bp !== null, 'the client seed and RTP are well formed')) {
      const cents = crashPointCents(seed, rec.client_seed, nonce, bp);
      check(
        parseMultiplier(rec.crash_point) === cents,
        `HMAC-SHA256(server seed, "${rec.client_seed}:${nonce}") at RTP ${rec.rtp} gives ${formatMultiplier(cents)}x; recorded ${rec.crash_point ?? 'nothing'}`,
      );
      if (rec.state === 'cashed_out') {
        const c = parseMultiplier(rec.cashout_multiplier);
        check(
          c !== null && c >= 101 && c <= cents,
          `the cash-out ${rec.cashout_multiplier}x lies in [1.01x, ${formatMultiplier(cents)}x]`,
        );
      }
    }
    return { ok: checks.every((c) => c.ok), checks };
  }

  const dataBlock = document.getElementById('replay-data');
  const result = document.querySelector('[data-testid="fairness-result"]');
  const list = document.querySelector('[data-testid="fairness-checks"]');
  if (!dataBlock || !result) return;
  let data;
  try {
    data = JSON.parse(dataBlock.textContent || '{}');
  } catch {
    result.dataset.result = 'mismatch';
    result.textContent = 'The round data could not be read.';
    return;
  }
  const rec = data.fairness;
  if (!rec?.server_seed) return;
  let outcome;
  try {
    outcome = verify(rec);
  } catch (err) {
    outcome = { ok: false, checks: [{ ok: false, what: `the check failed: ${String(err)}` }] };
  }
  for (const c of outcome.checks) {
    const li = document.createElement('li');
    li.dataset.ok = String(c.ok);
    li.textContent = `${c.ok ? '✓' : '✗'} ${c.what}`;
    list?.append(li);
  }
  result.dataset.result = outcome.ok ? 'verified' : 'mismatch';
  result.textContent = outcome.ok
    ? 'Verified in your browser: the crash point follows from the seeds.'
    : 'Mismatch: the recorded round does not follow from its seeds.';
})();
