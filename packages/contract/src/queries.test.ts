import { test } from 'node:test';
import { GameArtQuery, GamesListQuery, NativeHistoryQuery } from './index.js';
import { accepts, rejects } from './test-support/helpers.js';

test('GamesListQuery: both parameters optional; unknown provider ids are valid (empty list)', () => {
  accepts(GamesListQuery, {});
  accepts(GamesListQuery, { operator_id: 'op_1', provider_id: 'prov_a' });
  accepts(GamesListQuery, { provider_id: 'prov_z' });
  rejects(GamesListQuery, { provider_id: '' }, ['provider_id']);
});

test('GameArtQuery: thumbnail_format is vertical or horizontal', () => {
  accepts(GameArtQuery, {});
  accepts(GameArtQuery, {
    title: 'T',
    slug: 's',
    provider_id: 'prov_c',
    operator_id: 'op_1',
    thumbnail_format: 'vertical',
  });
  rejects(GameArtQuery, { thumbnail_format: 'square' }, ['thumbnail_format']);
});

test('NativeHistoryQuery requires session_id', () => {
  accepts(NativeHistoryQuery, { session_id: 'sess_1' });
  accepts(NativeHistoryQuery, { session_id: 'sess_1', operator_id: 'op_1' });
  rejects(NativeHistoryQuery, {}, ['session_id']);
  rejects(NativeHistoryQuery, { session_id: '' }, ['session_id']);
});
