// Multipart fields become the body the operation's schema describes; files are set aside.
import t from 'tap';
import { readMultipart } from '../../server/multipart.js';

const schema = {
  type: 'object',
  properties: {
    amount: { type: 'number' },
    wallet_id: { type: 'integer' },
    is_recurring: { type: 'boolean' },
    description: { type: 'string' },
    categories: { type: 'array', items: { type: 'integer' } },
    files: { type: 'array', items: { type: 'string', format: 'binary' } },
  },
};
const field = (fieldname: string, value: string) => ({ type: 'field' as const, fieldname, value });

t.test('fields are typed by the schema, files are set aside', async (t) => {
  const png = Buffer.from('89504e470d0a1a0a', 'hex');
  const { body, files } = await readMultipart(
    {
      amount: field('amount', '12.0'),
      wallet_id: field('wallet_id', '7'),
      is_recurring: field('is_recurring', 'false'),
      description: field('description', ''),
      'categories[]': [field('categories[]', '3'), field('categories[]', '4')],
      'files[]': { type: 'file', fieldname: 'files[]', filename: 'r.png', mimetype: 'image/png', toBuffer: async () => png },
      walletClientId: field('walletClientId', 'ignored-but-kept'),
    },
    schema,
    (s) => s,
  );
  t.same(body, {
    amount: 12,
    wallet_id: 7,
    is_recurring: false,
    description: '',
    categories: [3, 4],
    files: ['r.png'],
    walletClientId: 'ignored-but-kept',
  });
  t.equal(files.files.length, 1);
  t.equal(files.files[0].filename, 'r.png');
  t.same(files.files[0].data, png);
});

t.test('list parts named key[] in the schema are typed too', async (t) => {
  const formSchema = { type: 'object', properties: { 'categories[]': { type: 'array', items: { type: 'integer' } } } };
  const { body } = await readMultipart({ 'categories[]': [field('categories[]', '5'), field('categories[]', '6')] }, formSchema, (s) => s);
  t.same(body, { categories: [5, 6] });
});

t.test('file parts go under the spelling the schema uses', async (t) => {
  const png = Buffer.from('89504e470d0a1a0a', 'hex');
  const part = (fieldname: string) => ({ type: 'file' as const, fieldname, filename: 'r.png', mimetype: 'image/png', toBuffer: async () => png });
  const bracketSchema = { type: 'object', properties: { 'files[]': { type: 'array', items: { type: 'string' } } } };
  t.same((await readMultipart({ 'files[]': part('files[]') }, bracketSchema, (s) => s)).body, { 'files[]': ['r.png'] });
  t.same((await readMultipart({ 'files[]': part('files[]') }, schema, (s) => s)).body, { files: ['r.png'] }, 'files[] sent, schema says files');
  t.same((await readMultipart({ files: part('files') }, schema, (s) => s)).body, { files: ['r.png'] });
});

t.test('values that do not fit their type are left for validation to reject', async (t) => {
  const { body } = await readMultipart({ amount: field('amount', 'twelve'), wallet_id: field('wallet_id', '') }, schema, (s) => s);
  t.same(body, { amount: 'twelve' }, 'an empty non-string field is absent');
});

t.test('a list of objects: one part holding the JSON array, or a JSON object per part; an empty part is an empty list', async (t) => {
  const withLines = { type: 'object', properties: { splits: { type: 'array', items: { type: 'object', properties: { amount: { type: 'number' } } } } } };
  const read = async (parts: Record<string, unknown>) => (await readMultipart(parts as never, withLines, (s) => s)).body;
  t.same(await read({ splits: field('splits', '[{"amount": 6}, {"amount": 4}]') }), { splits: [{ amount: 6 }, { amount: 4 }] });
  t.same(await read({ 'splits[]': [field('splits[]', '{"amount": 6}'), field('splits[]', '{"amount": 4}')] }), { splits: [{ amount: 6 }, { amount: 4 }] });
  t.same(await read({ splits: field('splits', '') }), { splits: [] });
  t.same(await read({ splits: field('splits', 'not json') }), { splits: ['not json'] }, 'left as text: validation says why');
});
