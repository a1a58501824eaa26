// Admin outreach over HTTP: preview (personalised, Markdown made safe, nothing stored), the
// public image upload, sending to each audience (one outreach_sends row and one queued e-mail
// per recipient, nothing on bad input), attachments, and the campaign list whose counts
// follow the deliver-emails job.
import t from 'tap';
import { outreachAttachmentsOf } from '../db/outreach.js';
import { deliverPendingEmails } from '../jobs/deliver-emails.js';
import { grantAdmin } from '../scripts/admin.js';
import { readStoredBytes } from '../server/storage.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures, multipart, PNG } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fixtures = ledgerFixtures(api);

const admin = await api.newUser({ first_name: 'Ada', last_name: '<Admin>' });
{
  const granted = await grantAdmin(api.db, admin.email);
  if (granted.exitCode !== 0) throw new Error(granted.output);
}
const token = admin.token;

async function countRows(table: 'outreach_messages' | 'outreach_sends' | 'files'): Promise<number> {
  return Number((await api.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

async function outreachEmails(outreachId: number) {
  return api.db
    .selectFrom('emails')
    .innerJoin('outreach_sends', 'outreach_sends.id', 'emails.outreach_send_id')
    .select(['emails.user_id', 'emails.to_address', 'emails.subject', 'emails.text_body', 'emails.html_body', 'emails.kind', 'emails.status', 'outreach_sends.status as send_status'])
    .where('outreach_sends.outreach_id', '=', outreachId)
    .orderBy('emails.user_id')
    .execute();
}

async function userCount(): Promise<number> {
  return Number((await api.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

t.test('preview: the e-mail as the calling admin would get it; nothing stored', async (t) => {
  const before = await countRows('outreach_messages');
  const response = await api.request('POST', '/api/v1/admin/outreach/preview', {
    token,
    body: {
      subject: 'Hello {{ first_name }}',
      body: 'Dear {{name}} ({{email}}),\n\n**New** features! <script>alert(1)</script> [docs](https://example.test/docs) [trap](javascript:alert(1))',
      cta_label: 'Open {{first_name}}',
      cta_url: 'https://example.test/app',
      image_url: 'https://example.test/hero.png',
    },
  });
  t.equal(response.status, 200);
  const html: string = response.body.data.html;
  t.match(html, /^<!DOCTYPE html>/);
  t.match(html, '<title>Hello Ada</title>');
  t.match(html, `Dear Ada &lt;Admin&gt; (${admin.email})`, 'placeholders filled, HTML-escaped');
  t.match(html, '<strong>New</strong>');
  t.notMatch(html, '<script>', 'raw HTML is stripped');
  t.match(html, '<a href="https://example.test/docs">docs</a>');
  t.notMatch(html, 'javascript:', 'unsafe links are dropped');
  t.match(html, '<img src="https://example.test/hero.png"');
  t.match(html, '>Open &#123;&#123;first_name&#125;&#125;</a>', 'button fields keep their text as written');
  t.equal(await countRows('outreach_messages'), before);

  const bare = await api.request('POST', '/api/v1/admin/outreach/preview', { token, body: { cta_label: 'Only a label' } });
  t.equal(bare.status, 200);
  t.match(bare.body.data.html, '<title>Subject</title>', 'an empty subject becomes "Subject"');
  t.notMatch(bare.body.data.html, 'Only a label', 'no button without a URL');
  t.notMatch(bare.body.data.html, '<img', 'no image without image_url');

  const bad = await api.request('POST', '/api/v1/admin/outreach/preview', { token, body: { subject: 'x'.repeat(201), cta_label: 7 } });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.subject);
  t.ok(bad.body.errors.cta_label);
});

t.test('media: an image is stored and served publicly; anything else is refused', async (t) => {
  const upload = (filename: string, contentType: string, data: Buffer) => {
    const form = multipart([], [{ field: 'image', filename, contentType, data }]);
    return api.request('POST', '/api/v1/admin/outreach/media', { token, payload: form.payload, headers: form.headers });
  };
  const stored = await upload('hero.png', 'image/png', PNG);
  t.equal(stored.status, 200);
  const url: string = stored.body.data.url;
  t.match(url, new RegExp(`^${api.config.publicUrl}/storage/outreach/[0-9a-f-]{36}\\.png$`));
  const served = await api.app.inject({ method: 'GET', url: url.slice(api.config.publicUrl.length) });
  t.equal(served.statusCode, 200, 'readable without a token');
  t.equal(served.headers['content-type'], 'image/png');
  t.same(served.rawPayload, PNG);
  t.equal((await api.app.inject({ method: 'GET', url: '/storage/outreach/..%2F..%2Fsecret.png' })).statusCode, 404);

  const pdf = await upload('hero.png', 'image/png', Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n'));
  t.equal(pdf.status, 422, 'a PDF named .png is not an image');
  t.ok(pdf.body.errors.image);
  const text = await upload('notes.txt', 'text/plain', Buffer.from('hello'));
  t.equal(text.status, 422);
  t.ok(text.body.errors.image);

  const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
  t.equal((await upload('big.png', 'image/png', big)).status, 413, 'over 5 MB');

  const missing = multipart([['note', 'no file']]);
  const none = await api.request('POST', '/api/v1/admin/outreach/media', { token, payload: missing.payload, headers: missing.headers });
  t.equal(none.status, 422);
  t.ok(none.body.errors.image);
});

t.test('send to all: one send and one personalised e-mail per user, queued in the outbox', async (t) => {
  const users = await userCount();
  const response = await api.request('POST', '/api/v1/admin/outreach/send', {
    token,
    body: { subject: 'News for {{first_name}}', body: 'Hi {{name}}, *thanks*.', audience: 'all', cta_label: 'Open', cta_url: 'https://example.test/app' },
  });
  t.equal(response.status, 200);
  t.equal(response.body.message, `Outreach sent to ${users} recipients`);
  t.equal(response.body.data.sent, users);
  const outreach = response.body.data.outreach;
  t.match(outreach, { sender_id: admin.user.id, subject: 'News for {{first_name}}', audience: 'all', recipients: users, sent: 0, failed: 0, attachments: [] });

  const emails = await outreachEmails(outreach.id);
  t.equal(emails.length, users, 'one e-mail per recipient');
  t.equal(new Set(emails.map((e) => e.user_id)).size, users);
  t.ok(emails.every((e) => e.kind === 'outreach' && e.status === 'pending' && e.send_status === 'queued'));
  const mine = emails.find((e) => e.user_id === admin.user.id)!;
  t.equal(mine.to_address, admin.email);
  t.equal(mine.subject, 'News for Ada');
  t.match(mine.text_body, 'Hi Ada <Admin>, *thanks*.');
  t.match(mine.text_body, 'Open: https://example.test/app');
  t.match(mine.html_body, 'Hi Ada &lt;Admin&gt;, <em>thanks</em>.');
  t.notMatch(mine.html_body, '{{', 'every placeholder filled');
});

t.test('audiences: test, specific, active and inactive', async (t) => {
  const active = await api.newUser({ first_name: 'Busy' });
  const idle = await api.newUser({ first_name: 'Idle' });
  const wallet = await fixtures.mainWallet(active.user.id);
  await api.db.insertInto('transactions').values({ user_id: active.user.id, wallet_id: wallet, type: 'expense', amount: '5', datetime: new Date(Date.now() - 86_400_000) }).execute();
  await api.db.insertInto('transactions').values({ user_id: idle.user.id, wallet_id: await fixtures.mainWallet(idle.user.id), type: 'expense', amount: '5', datetime: new Date(Date.now() - 40 * 86_400_000) }).execute();
  const send = (body: Record<string, unknown>) => api.request('POST', '/api/v1/admin/outreach/send', { token, body: { subject: 'S', body: 'B', ...body } });
  const recipientsOf = async (response: any) => (await outreachEmails(response.body.data.outreach.id)).map((e) => e.user_id);

  const content = { subject: 'Hi {{name}}', body: '# {{first_name}} & {{last_name}}\n\n- {{email}}', cta_label: 'Go', cta_url: 'https://example.test/' };
  const test = await send({ audience: 'test', ...content });
  t.same(await recipientsOf(test), [admin.user.id], 'test: the calling admin only');
  const preview = await api.request('POST', '/api/v1/admin/outreach/preview', { token, body: content });
  const [queued] = await outreachEmails(test.body.data.outreach.id);
  t.equal(queued.html_body, preview.body.data.html, 'the queued e-mail (filled in SQL) is exactly the preview (filled in JS)');
  t.equal(queued.subject, 'Hi Ada <Admin>');

  const specific = await send({ audience: 'specific', user_ids: [idle.user.id, active.user.id] });
  t.same(await recipientsOf(specific), [active.user.id, idle.user.id].sort((a, b) => a - b));
  t.match(specific.body.data.outreach, { audience: 'specific', recipients: 2 });

  const activeSend = await send({ audience: 'active' });
  t.same(await recipientsOf(activeSend), [active.user.id], 'a transaction in the last 30 days');
  const inactive = await send({ audience: 'inactive' });
  const inactiveIds = await recipientsOf(inactive);
  t.equal(inactiveIds.length, (await userCount()) - 1);
  t.ok(inactiveIds.includes(idle.user.id) && !inactiveIds.includes(active.user.id));
});

t.test('send: bad input is 422 keyed by field, and nothing is stored or queued', async (t) => {
  const before = { messages: await countRows('outreach_messages'), sends: await countRows('outreach_sends') };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ subject: 'S', body: 'B' }, 'audience'],
    [{ subject: '', body: 'B', audience: 'all' }, 'subject'],
    [{ subject: 'S', body: 'B', audience: 'everyone' }, 'audience'],
    [{ subject: 'S', body: 'B', audience: 'all', cta_label: 'Go' }, 'cta_url'],
    [{ subject: 'S', body: 'B', audience: 'all', cta_label: 'Go', cta_url: 'not a url' }, 'cta_url'],
    [{ subject: 'S', body: 'B', audience: 'specific' }, 'user_ids'],
    [{ subject: 'S', body: 'B', audience: 'specific', user_ids: [admin.user.id, 987654321] }, 'user_ids.1'],
  ];
  for (const [body, field] of cases) {
    const response = await api.request('POST', '/api/v1/admin/outreach/send', { token, body });
    t.equal(response.status, 422, JSON.stringify(body));
    t.ok(response.body.errors[field], `errors.${field} in ${JSON.stringify(response.body.errors)}`);
  }
  t.equal(await countRows('outreach_messages'), before.messages);
  t.equal(await countRows('outreach_sends'), before.sends);
});

t.test('multipart send with attachments; a file of another type is 422 on files.N', async (t) => {
  const files = [
    { field: 'files[]', filename: 'hero.png', contentType: 'image/png', data: PNG },
    { field: 'files[]', filename: 'list.csv', contentType: 'text/csv', data: Buffer.from('a,b\n1,2\n') },
  ];
  const form = multipart(
    [
      ['subject', 'With files'],
      ['body', 'See attached'],
      ['audience', 'specific'],
      ['user_ids[]', String(admin.user.id)],
    ],
    files,
  );
  const filesBefore = await countRows('files');
  const response = await api.request('POST', '/api/v1/admin/outreach/send', { token, payload: form.payload, headers: form.headers });
  t.equal(response.status, 200);
  t.same(response.body.data.outreach.attachments, [
    { name: 'hero.png', mime_type: 'image/png', size: PNG.length },
    { name: 'list.csv', mime_type: 'text/csv', size: 8 },
  ]);
  t.equal(response.body.data.sent, 1);
  t.equal(await countRows('files'), filesBefore + 2);
  const [send] = await api.db.selectFrom('outreach_sends').select('id').where('outreach_id', '=', response.body.data.outreach.id).execute();
  const attached = await outreachAttachmentsOf(api.db, send.id);
  t.same(attached.map((a) => [a.name, a.mime_type]), [['hero.png', 'image/png'], ['list.csv', 'text/csv']], 'what the mail sender attaches');
  t.same(await readStoredBytes(api.app.services.storage, attached[0].path), PNG);

  const bad = multipart(
    [
      ['subject', 'S'],
      ['body', 'B'],
      ['audience', 'test'],
    ],
    [
      { field: 'files[]', filename: 'ok.png', contentType: 'image/png', data: PNG },
      { field: 'files[]', filename: 'tool.exe', contentType: 'application/octet-stream', data: Buffer.from('MZ\u0000\u0000binary') },
    ],
  );
  const refused = await api.request('POST', '/api/v1/admin/outreach/send', { token, payload: bad.payload, headers: bad.headers });
  t.equal(refused.status, 422);
  t.ok(refused.body.errors['files.1']);
  t.equal(await countRows('files'), filesBefore + 2, 'no file kept');
});

t.test('list: newest first, with recipients, sent and failed as delivery goes', async (t) => {
  const one = await api.newUser();
  const two = await api.newUser();
  const sent = await api.request('POST', '/api/v1/admin/outreach/send', {
    token,
    body: { subject: 'Latest', body: 'B', audience: 'specific', user_ids: [one.user.id, two.user.id] },
  });
  const id = sent.body.data.outreach.id;

  // The deliver-emails job sends the outbox; the second recipient's server refuses for good.
  const transport = {
    kind: 'outbox' as const,
    close() {},
    async send(message: { to: string }) {
      if (message.to === two.email) throw Object.assign(new Error('mailbox unavailable'), { responseCode: 550 });
      return { messageId: `<${message.to}>` };
    },
  };
  await deliverPendingEmails(api.db, transport, api.app.services.storage, () => new Date());

  const list = await api.request('GET', '/api/v1/admin/outreach?limit=2', { token });
  t.equal(list.status, 200);
  t.equal(list.body.data.data[0].id, id, 'newest first');
  t.match(list.body.data.data[0], { subject: 'Latest', audience: 'specific', recipients: 2, sent: 1, failed: 1 });
  t.ok(list.body.data.data[1].id < id);
  const total = await countRows('outreach_messages');
  t.match(list.body.data, { per_page: 2, current_page: 1, total, last_page: Math.ceil(total / 2) });

  const bad = await api.request('GET', '/api/v1/admin/outreach?page=0', { token });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.page);
});

// ---- review: unsafe links, raw HTML and placeholders in addresses -------------------------------

t.test('preview: no script can get in through links, images, raw HTML or placeholders', async (t) => {
  const sneaky = await api.newUser({ first_name: 'javascript:alert(1)//', last_name: '"><script>x</script>' });
  const granted = await grantAdmin(api.db, sneaky.email);
  if (granted.exitCode !== 0) throw new Error(granted.output);
  const body = [
    '[a](JaVaScRiPt:alert(1)) [b](vbscript:msgbox(1)) [c](data:text/html,<script>alert(1)</script>)',
    '![img](javascript:alert(1)) <a href="javascript:alert(1)">raw</a> <img src=x onerror=alert(1)>',
    '[first]({{first_name}}) [last]({{ last_name }}) [ok](https://example.test/?who={{first_name}})',
    '<scr<script>ipt>alert(1)</script> <!-- <script>hidden</script> -->',
  ].join('\n\n');
  const response = await api.request('POST', '/api/v1/admin/outreach/preview', {
    token: sneaky.token,
    body: { subject: '{{last_name}}', body, cta_label: 'Go', cta_url: 'javascript:alert(1)', image_url: 'javascript:alert(1)' },
  });
  t.equal(response.status, 200);
  const html: string = response.body.data.html;
  t.notMatch(html, /href="\s*(javascript|vbscript|data):/i, 'no unsafe link target');
  t.notMatch(html, /src="\s*javascript:/i, 'no unsafe image source');
  t.notMatch(html, /<script/i, 'no script element');
  t.notMatch(html, /<img[^>]*onerror/i, 'no raw image with a handler');
  t.notMatch(html, /<a href="javascript/i);
  t.match(html, '<a href="https://example.test/?who=javascript:alert(1)//">ok</a>', 'a placeholder after a safe scheme is filled');
  t.notMatch(html, 'Go</a>', 'no button to an unsafe address');

  // The same through a send: the filled e-mail of a recipient whose name is an address.
  const sent = await api.request('POST', '/api/v1/admin/outreach/send', {
    token,
    body: { subject: 'S', body: '[first]({{first_name}}) [mail](mailto:{{email}})', audience: 'specific', user_ids: [sneaky.user.id] },
  });
  t.equal(sent.status, 200);
  const [queued] = await outreachEmails(sent.body.data.outreach.id);
  t.notMatch(queued.html_body, /href="\s*javascript:/i, 'the queued e-mail has no unsafe link either');
  t.match(queued.html_body, `<a href="mailto:${sneaky.email}">mail</a>`);
});

t.test('send: NUL characters and unsafe button addresses are 422 keyed by field; deep quotes render', async (t) => {
  const before = await countRows('outreach_messages');
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ subject: 'S\u0000', body: 'B', audience: 'test' }, 'subject'],
    [{ subject: 'S', body: 'B\u0000', audience: 'test' }, 'body'],
    [{ subject: 'S', body: 'B', audience: 'test', cta_label: 'Go', cta_url: 'javascript:alert(1)' }, 'cta_url'],
    [{ subject: 'S', body: 'B', audience: 'test', cta_label: 'Go', cta_url: 'data:text/html,hi' }, 'cta_url'],
  ];
  for (const [body, field] of cases) {
    const response = await api.request('POST', '/api/v1/admin/outreach/send', { token, body });
    t.equal(response.status, 422, JSON.stringify(body));
    t.ok(response.body.errors?.[field], `errors.${field}`);
  }
  t.equal(await countRows('outreach_messages'), before, 'nothing stored');

  const deep = await api.request('POST', '/api/v1/admin/outreach/preview', { token, body: { body: `${'> '.repeat(3000)}deep` } });
  t.equal(deep.status, 200, 'a quote nested 3000 deep is not a stack overflow');
  t.match(deep.body.data.html, 'deep');
  const nested = await api.request('POST', '/api/v1/admin/outreach/preview', { token, body: { body: '> > quoted twice' } });
  t.match(nested.body.data.html, '<blockquote><blockquote><p>quoted twice</p></blockquote></blockquote>');
});

t.test('public media: only outreach images, never attachments or anything through traversal', async (t) => {
  const form = multipart(
    [
      ['subject', 'S'],
      ['body', 'B'],
      ['audience', 'test'],
    ],
    [{ field: 'files[]', filename: 'private.png', contentType: 'image/png', data: PNG }],
  );
  const sent = await api.request('POST', '/api/v1/admin/outreach/send', { token, payload: form.payload, headers: form.headers });
  t.equal(sent.status, 200);
  const [send] = await api.db.selectFrom('outreach_sends').select('id').where('outreach_id', '=', sent.body.data.outreach.id).execute();
  const [attachment] = await outreachAttachmentsOf(api.db, send.id);
  t.match(attachment.path, /^outreach\/attachments\//);
  const name = attachment.path.split('/').pop()!;
  for (const url of [
    `/storage/outreach/attachments/${name}`,
    `/storage/outreach/attachments%2F${name}`,
    `/storage/outreach/attachments%2f${name}`,
    `/storage/outreach/..%2Foutreach%2Fattachments%2F${name}`,
    `/storage/outreach/%2e%2e/outreach/attachments/${name}`,
    `/storage/outreach/../outreach/attachments/${name}`,
    '/storage/outreach/..%5c..%5csecret.png',
    '/storage/outreach/%00.png',
  ]) {
    const res = await api.app.inject({ method: 'GET', url });
    t.not(res.statusCode, 200, url);
    t.not(res.statusCode, 500, url);
  }
});

