// The assistant's chats with files: attachments to a user message (which release a held
// reply) and the export of a completed reply, against the same fake provider as
// assistant.test.ts.
import t from 'tap';
import { ANSWER_CHAT_MESSAGE_JOB } from '../db/job-names.js';
import { assistantTestApp, text } from './helpers/assistant.js';
import { multipart, PNG } from './helpers/transaction-fixtures.js';

const { api, script, nudges, owner, stranger, newChat, getChat, runJob } = await assistantTestApp(t);

t.test('files attach to a user message and release a held reply', async (t) => {
  nudges.length = 0;
  const chat = await newChat(owner.token, 'Import this statement', { defer_processing: true });
  const [question, reply] = chat.messages;
  const url = `/api/v1/ai/chats/${chat.id}/messages/${question.id}/files`;
  const csv = Buffer.from('date,amount\n2026-01-02,12.50\n');
  const body = multipart([['document_type', 'bank_statement']], [
    { field: 'files', filename: 'receipt.png', contentType: 'image/png', data: PNG },
    // web forms name the parts `files[]`: the same field
    { field: 'files[]', filename: 'march.csv', contentType: 'text/csv', data: csv },
  ]);
  const res = await api.request('POST', url, { token: owner.token, payload: body.payload, headers: body.headers });
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.equal(res.body.message, 'Files attached.');
  t.same(res.body.data.files.map((f: any) => [f.type, f.mime_type, f.name, f.document_type, f.size]), [
    ['image', 'image/png', 'receipt.png', 'bank_statement', PNG.length],
    ['document', 'text/csv', 'march.csv', 'bank_statement', csv.length],
  ]);
  t.match(res.body.data.files[0].link, /\/api\/v1\/files\/\d+$/);
  t.match(res.body.data.files[0], { fileable_type: 'App\\Models\\ChatMessage', fileable_id: question.id }, 'the owner by the reference names');
  t.same(nudges, [ANSWER_CHAT_MESSAGE_JOB], 'the held reply is queued now');
  script.push(text('I see a statement.'));
  await runJob();
  t.equal((await getChat(chat.id)).messages[1].status, 'completed', 'and answered');

  const toReply = multipart([], [{ field: 'files', filename: 'a.png', contentType: 'image/png', data: PNG }]);
  const onReply = await api.request('POST', `/api/v1/ai/chats/${chat.id}/messages/${reply.id}/files`, { token: owner.token, payload: toReply.payload, headers: toReply.headers });
  t.equal(onReply.status, 404);
  t.equal(onReply.body.message, 'Message not found.');
  const foreign = await api.request('POST', url, { token: stranger.token, payload: toReply.payload, headers: toReply.headers });
  t.equal(foreign.status, 404);
  t.equal((await api.request('POST', url, { payload: toReply.payload, headers: toReply.headers })).status, 401);

  const exe = multipart([], [{ field: 'files', filename: 'tool.csv', contentType: 'text/csv', data: Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00]) }]);
  const bad = await api.request('POST', url, { token: owner.token, payload: exe.payload, headers: exe.headers });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors['files.0'], 'binary bytes named .csv are refused');
  const big = multipart([], [{ field: 'files', filename: 'big.txt', contentType: 'text/plain', data: Buffer.alloc(5 * 1024 * 1024 + 1, 'a') }]);
  const tooBig = await api.request('POST', url, { token: owner.token, payload: big.payload, headers: big.headers });
  t.equal(tooBig.status, 422);
  t.ok(tooBig.body.errors['files.0']);
  const none = multipart([['document_type', 'receipt']]);
  const empty = await api.request('POST', url, { token: owner.token, payload: none.payload, headers: none.headers });
  t.equal(empty.status, 422);
  t.ok(empty.body.errors.files);
  t.equal((await getChat(chat.id)).messages[0].files.length, 2, 'refused uploads attach nothing');

  const paths = res.body.data.files.map((f: any) => f.path);
  const stored = async () => Promise.all(paths.map((p: string) => api.app.services.storage.exists(p)));
  t.same(await stored(), [true, true]);
  t.equal((await api.request('DELETE', `/api/v1/ai/chats/${chat.id}`, { token: owner.token })).status, 200);
  t.same(await stored(), [false, false], 'deleting the chat removes its attachments');
  t.equal((await api.db.selectFrom('files').select('id').where('path', 'in', paths).execute()).length, 0);
});

t.test('export: a completed reply as Markdown; nothing to export is 404', async (t) => {
  const chat = await newChat(owner.token, 'Monthly report', { title: 'March report' });
  const [question, reply] = chat.messages;
  const url = (id: number, format = 'md') => `/api/v1/ai/chats/${chat.id}/messages/${id}/export?format=${format}`;
  const pending = await api.request('GET', url(reply.id), { token: owner.token });
  t.equal(pending.status, 404);
  t.equal(pending.body.message, 'This message has no document to export.');
  t.equal((await api.request('GET', url(question.id), { token: owner.token })).status, 404, 'a user message has no document');
  const format = await api.request('GET', url(reply.id, 'pdf'), { token: owner.token });
  t.equal(format.status, 422);
  t.ok(format.body.errors.format);
  t.equal((await api.request('GET', url(reply.id), { token: stranger.token })).status, 404);
  t.equal((await api.request('GET', url(reply.id))).status, 401);

  script.push(text('You spent **20 USD**.'));
  await runJob();
  const plain = await api.request('GET', url(reply.id), { token: owner.token });
  t.equal(plain.status, 200);
  t.match(plain.headers['content-type'], /^text\/markdown/);
  t.equal(plain.headers['content-disposition'], 'attachment; filename="march-report.md"');
  t.equal(plain.body, '# March report\n\nYou spent **20 USD**.\n', 'the export is the Markdown');
  t.same(((await getChat(chat.id)).messages[1]).content, 'You spent 20 USD.', 'the chat shows the plain text');

  // a report (canvas) is exported on its own
  await api.db
    .updateTable('chat_messages')
    .set({
      result: JSON.stringify({
        source: 'agent',
        blocks: [
          { type: 'markdown', text: 'Here is your report.' },
          {
            type: 'canvas',
            title: 'Spending | March',
            blocks: [
              { type: 'markdown', text: '  Overview  ' },
              { type: 'table', title: 'Top', columns: ['category_name', 'tags', 'paid'], rows: [{ category_name: 'Food | drink', tags: ['a', 'b'], paid: true }] },
              { type: 'table', columns: ['x'], rows: [] },
              { type: 'kpi', items: [{ label: 'Income', value: 100, currency: 'USD' }, { label: 'Savings rate', value: 12.5, unit: '%' }] },
              { type: 'chart', dataset_ref: 'category_spending', chart_hint: 'donut', data: [{ label: 'Food', value: 20 }] },
              { type: 'callout', variant: 'info', text: 'left out' },
            ],
          },
        ],
      }),
    })
    .where('id', '=', reply.id)
    .execute();
  const report = await api.request('GET', url(reply.id), { token: owner.token });
  t.equal(report.headers['content-disposition'], 'attachment; filename="spending-march.md"');
  t.equal(
    report.body,
    [
      '# Spending | March',
      'Overview',
      '## Top\n\n| Category Name | Tags | Paid |\n| --- | --- | --- |\n| Food \\| drink | a, b | yes |',
      '- **Income:** 100 USD\n- **Savings rate:** 12.5%',
      '_Chart: Category Spending_\n\n| Label | Value |\n| --- | --- |\n| Food | 20 |',
    ].join('\n\n') + '\n',
  );
});
