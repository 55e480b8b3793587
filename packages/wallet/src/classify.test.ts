import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyResponse } from './classify.js';

test('200 with success true and a decimal string balance is success', () => {
  assert.deepEqual(classifyResponse(200, '{"success":true,"balance":"12.50","currency":"EUR"}'), {
    kind: 'success',
    balance: '12.50',
    httpStatus: 200,
  });
  assert.equal(classifyResponse(200, '{"success":true,"balance":"0"}').kind, 'success');
});

test('200 that is not a proper success is uncertain, never success', () => {
  for (const body of [
    '{"success":true,"balance":12.5}',
    '{"success":true}',
    '{"success":"true","balance":"1.00"}',
    '{"success":false,"error":"x"}',
    '{"success":true,"balance":"1e3"}',
    'OK',
    '',
    '[]',
  ]) {
    assert.equal(classifyResponse(200, body).kind, 'uncertain', body);
  }
});

test('400 with success false and an error code is a definite rejection, code kept', () => {
  assert.deepEqual(classifyResponse(400, '{"success":false,"error":"insufficient_funds","message":"no"}'), {
    kind: 'rejected',
    error: 'insufficient_funds',
    message: 'no',
    httpStatus: 400,
  });
  assert.equal(classifyResponse(400, '{"success":false,"error":"player_blocked"}').kind, 'rejected');
});

test('400 without the error shape is uncertain (a proxy page, say)', () => {
  assert.equal(classifyResponse(400, '<html>Bad Request</html>').kind, 'uncertain');
  assert.equal(classifyResponse(400, '{"success":false}').kind, 'uncertain');
  assert.equal(classifyResponse(400, '{"success":true,"balance":"1"}').kind, 'uncertain');
});

test('401 is a configuration fault, whatever the body', () => {
  assert.equal(classifyResponse(401, '{"success":false,"error":"invalid_signature"}').kind, 'config_fault');
  assert.equal(
    classifyResponse(401, 'nope').kind,
    'config_fault',
    'a proxy 401 page is a configuration fault too',
  );
});

test('5xx, 404, 409, 429 and other statuses are uncertain', () => {
  for (const status of [500, 502, 503, 504, 404, 409, 429, 302]) {
    assert.equal(classifyResponse(status, '{"success":false,"error":"x"}').kind, 'uncertain', String(status));
  }
});
