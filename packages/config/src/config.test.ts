import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './index.js';

test('defaults apply with an empty environment', () => {
  const cfg = loadConfig({});
  assert.equal(cfg.NODE_ENV, 'development');
  assert.equal(cfg.PORT, 8080);
  assert.equal(cfg.SIGNATURE_MAX_SKEW_SECONDS, 300);
  assert.equal(cfg.signedRequestsRequired, false);
  assert.equal(cfg.DATABASE_URL, undefined);
});

test('numbers are coerced and empty strings count as unset', () => {
  const cfg = loadConfig({ PORT: '9001', DATABASE_URL: '', SIGNATURE_MAX_SKEW_SECONDS: '60' });
  assert.equal(cfg.PORT, 9001);
  assert.equal(cfg.DATABASE_URL, undefined);
  assert.equal(cfg.SIGNATURE_MAX_SKEW_SECONDS, 60);
});

test('an invalid value names the variable and what it expects', () => {
  assert.throws(
    () => loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', TEMPORAL_ADDRESS: 'nohost' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /PORT="eighty": expected/);
      assert.match(
        err.message,
        /DATABASE_URL="mysql:\/\/x": expected a URL starting with postgres:\/\/ or postgresql:\/\//,
      );
      assert.match(err.message, /TEMPORAL_ADDRESS="nohost": expected host:port/);
      assert.equal(err.problems.length, 3);
      return true;
    },
  );
});

test('production requires the service secret and signs requests by default', () => {
  assert.throws(() => loadConfig({ NODE_ENV: 'production' }), /SERVICE_SECRET: required/);
  const cfg = loadConfig({ NODE_ENV: 'production', SERVICE_SECRET: 'x'.repeat(32) });
  assert.equal(cfg.signedRequestsRequired, true);
  // Issue 23, point 9: unsigned keyed requests cannot be allowed in production.
  assert.throws(
    () => loadConfig({ NODE_ENV: 'production', SERVICE_SECRET: 'x'.repeat(32), SIGNED_REQUESTS: 'optional' }),
    /SIGNED_REQUESTS=optional: refused when NODE_ENV=production/,
  );
  assert.equal(
    loadConfig({ NODE_ENV: 'development', SIGNED_REQUESTS: 'optional' }).signedRequestsRequired,
    false,
  );
});

test('enumerations are checked', () => {
  assert.throws(() => loadConfig({ SIGNED_REQUESTS: 'sometimes' }), /SIGNED_REQUESTS="sometimes"/);
  assert.throws(() => loadConfig({ PORT: '70000' }), /PORT="70000"/);
});
