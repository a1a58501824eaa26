// A plain list's cursor (domain/list-cursor.ts): the sort key it was sealed with comes back
// exactly, for the list it was made for only; any change to its text is refused; its shape is
// never a sync feed's cursor's, nor the other way round.
import t from 'tap';
import { parseFeedCursor } from '../../db/feed.js';
import { looksLikeListCursor, openListCursor, sealListCursor } from '../../domain/list-cursor.js';

const KEY = 'key-0123456789abcdef';
const LIST = '[["transactions.datetime","desc"],["transactions.id","desc"]]\n[["type","expense"]]';
const SORT_KEY = ['2024-01-01 00:00:00.000001+00', '', 'ünïcödé', '9007199254740993'];

t.test('the key comes back exactly, for its list', async (t) => {
  const cursor = sealListCursor(KEY, LIST, SORT_KEY);
  t.match(cursor, /^0\.[1-9]\d{15,}$/);
  t.same(openListCursor(KEY, LIST, cursor), { ok: true, key: SORT_KEY });
  t.same(openListCursor(KEY, `${LIST} `, cursor), { ok: false, reason: 'other-list' }, 'another list');
  t.same(openListCursor('another key', LIST, cursor), { ok: false, reason: 'damaged' }, "another deployment's key");
  t.equal(sealListCursor(KEY, LIST, SORT_KEY), cursor, 'the same key seals the same way (kept answers and tags stay stable)');
  t.same(openListCursor(KEY, LIST, sealListCursor(KEY, LIST, [])), { ok: true, key: [] });
  t.throws(() => sealListCursor(KEY, LIST, ['x'.repeat(256)]), /too long/);
});

t.test('every change of one digit, a cut and an extension is refused', async (t) => {
  const cursor = sealListCursor(KEY, LIST, SORT_KEY);
  let refused = 0;
  for (let at = 2; at < cursor.length; at++) {
    for (const digit of '0123456789') {
      if (digit === cursor[at]) continue;
      const changed = cursor.slice(0, at) + digit + cursor.slice(at + 1);
      if (!openListCursor(KEY, LIST, changed).ok) refused++;
    }
  }
  t.equal(refused, (cursor.length - 2) * 9, 'every one-digit change');
  for (const changed of [cursor.slice(0, -1), `${cursor}0`, cursor.replace(/^0\./, '1.'), `0.${'9'.repeat(1300)}`, '0.1234567890123456']) {
    t.same(openListCursor(KEY, LIST, changed), { ok: false, reason: 'damaged' }, changed.slice(0, 30));
  }
});

t.test('list cursors and sync cursors are told apart by their shape', async (t) => {
  const cursor = sealListCursor(KEY, LIST, SORT_KEY);
  t.equal(parseFeedCursor(cursor), undefined, 'a list cursor is no sync cursor');
  for (const sync of ['1764034000123.42', '0.0', '0.123456789012345', '999999999999999.999999999999999']) {
    t.ok(parseFeedCursor(sync), sync);
    t.notOk(looksLikeListCursor(sync), `${sync} is no list cursor`);
  }
});
