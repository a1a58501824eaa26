// The floor of this machine for a page of transactions (issue 40 item 4): a bare node:http
// server, no auth, no validation, no JS per row, answering with one pooled statement that
// builds the page's whole JSON in PostgreSQL, with the same fields as the service's page (the
// nested wallet, party, group and categories with their sync state, files, the recurring
// rule, the page counters and totals). What the service costs over it, route by route, is
// what its layers cost for the same bytes. The page's `total` and `totals` are counted once at
// start (the service reads them from its summaries; a count per request would measure
// counting). PostgreSQL's JSON text puts a space around each `:` and after each `,`, so its
// page is ~12 % longer than the service's. GET /floor/transactions?page=&limit=&wallet_ids=&synced_since= as the service
// takes them; a sync page is read by offset in (last_synced_at, id) order, as a client that
// jumps to it is answered.
import http from 'node:http';
import pg from 'pg';

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const clientId = (alias: string) => `case when ${alias}_device.token is null or ${alias}.client_generated_id is null then null else ${alias}_device.token || ':' || ${alias}.client_generated_id end`;

/** The fields every synced record shows (handlers/views/sync.ts), for the row `alias` joined with `<alias>_device`. */
function syncFields(alias: string, type: string): string {
  return `'id', ${alias}.id, 'user_id', ${alias}.user_id, 'client_generated_id', ${clientId(alias)},
    'created_at', ${iso(`${alias}.created_at`)}, 'updated_at', ${iso(`${alias}.updated_at`)}, 'deleted_at', ${iso(`${alias}.deleted_at`)},
    'last_synced_at', ${iso(`${alias}.last_synced_at`)},
    'sync_state', json_build_object('id', ${alias}.id, 'syncable_type', '${type}', 'syncable_id', ${alias}.id, 'source', ${alias}_device.platform,
      'client_generated_id', ${alias}.client_generated_id, 'device_id', ${alias}.device_id, 'last_synced_at', ${iso(`${alias}.last_synced_at`)},
      'created_at', ${iso(`${alias}.created_at`)}, 'updated_at', ${iso(`${alias}.updated_at`)}, 'deleted_at', ${iso(`${alias}.deleted_at`)})`;
}

/** A record's icon (handlers/views/icon.ts) from `<alias>_icon`. */
const icon = (alias: string) =>
  `case when ${alias}_icon.id is null then null else json_build_object('id', ${alias}_icon.id, 'type', ${alias}_icon.type,
    'content', coalesce(${alias}_icon.content, '/api/v1/files/' || ${alias}_icon.file_id), 'path', coalesce('/api/v1/files/' || ${alias}_icon.file_id, ${alias}_icon.content, '')) end`;

/** A nested record of `table` by id, with its device and icon. */
function nested(table: string, alias: string, type: string, idColumn: string, fields: string): string {
  return `(select json_build_object(${syncFields(alias, type)}, ${fields}, 'icon', ${icon(alias)})
    from ${table} ${alias} left join devices ${alias}_device on ${alias}_device.id = ${alias}.device_id left join icons ${alias}_icon on ${alias}_icon.id = ${alias}.icon_id
    where ${alias}.id = ${idColumn})`;
}

function pageStatement(sync: boolean): string {
  const order = sync ? 't.last_synced_at, t.id' : 't.datetime desc, t.created_at desc, t.id desc';
  // every statement names $5 (a statement's parameters are numbered without gaps)
  const filter = sync ? 't.last_synced_at >= $5::timestamptz' : 't.deleted_at is null and $5::timestamptz is null';
  return `
with page as (
  select t.* from transactions t
  where t.user_id = $1 and ${filter} and ($4::bigint is null or t.wallet_id = $4)
  order by ${order} limit $2 offset $3
)
select json_build_object('success', true, 'message', 'Operation successful', 'data', json_build_object(
  'data', coalesce((select json_agg(json_build_object(${syncFields('t', 'transaction')},
      'type', t.type, 'amount', trim_scale(t.amount), 'description', t.description, 'datetime', ${iso('t.datetime')},
      'intent', t.intent, 'metadata', t.metadata, 'wallet_id', t.wallet_id, 'party_id', t.party_id, 'group_id', t.group_id,
      'transfer_id', t.transfer_id, 'is_recurring', rule.id is not null, 'is_refund', t.is_refund,
      'refund_of_transaction_id', t.refund_of_transaction_id, 'amount_in_budget_currency', null,
      'wallet', ${nested('wallets', 'w', 'wallet', 't.wallet_id', `'name', w.name, 'slug', w.slug, 'type', w.type, 'description', w.description, 'currency', w.currency, 'balance', trim_scale(w.balance), 'stats', json_build_object('total_income', trim_scale(w.income_total), 'total_expense', trim_scale(w.expense_total))`)},
      'party', ${nested('parties', 'p', 'party', 't.party_id', `'name', p.name, 'type', p.type, 'description', p.description`)},
      'group', ${nested('groups', 'g', 'group', 't.group_id', `'name', g.name, 'slug', g.slug, 'description', g.description`)},
      'categories', coalesce((select json_agg(json_build_object(${syncFields('c', 'category')}, 'name', c.name, 'slug', c.slug, 'description', c.description, 'type', c.type, 'icon', ${icon('c')}) order by c.id)
        from transaction_categories tc join categories c on c.id = tc.category_id and c.deleted_at is null
        left join devices c_device on c_device.id = c.device_id left join icons c_icon on c_icon.id = c.icon_id
        where tc.transaction_id = t.id), '[]'::json),
      'wallet_client_generated_id', (select ${clientId('w')} from wallets w left join devices w_device on w_device.id = w.device_id where w.id = t.wallet_id),
      'party_client_generated_id', (select ${clientId('p')} from parties p left join devices p_device on p_device.id = p.device_id where p.id = t.party_id),
      'transfer_client_generated_id', (select ${clientId('x')} from transfers x left join devices x_device on x_device.id = x.device_id where x.id = t.transfer_id),
      'files', coalesce((select json_agg(json_build_object('id', f.id, 'path', f.path, 'link', 'http://127.0.0.1/api/v1/files/' || f.id, 'type', f.type,
        'fileable_type', 'App\\Models\\Transaction', 'fileable_id', f.transaction_id, 'mime_type', f.mime_type, 'size', f.size,
        'created_at', ${iso('f.created_at')}, 'updated_at', ${iso('f.updated_at')}) order by f.id) from files f where f.transaction_id = t.id), '[]'::json),
      'recurring_rules', case when rule.id is null then null else json_build_object('id', rule.id, 'transaction_id', rule.transaction_id,
        'recurrence_period', rule.recurrence_period, 'recurrence_interval', rule.recurrence_interval, 'recurrence_ends_at', ${iso('rule.recurrence_ends_at')},
        'next_scheduled_at', ${iso('rule.next_scheduled_at')}, 'created_at', ${iso('rule.created_at')}, 'updated_at', ${iso('rule.updated_at')}) end
    ) order by ${order})
    from page t left join devices t_device on t_device.id = t.device_id left join recurring_rules rule on rule.transaction_id = t.id), '[]'::json),
  'last_sync', ${iso('now()')}, 'current_page', $6::int, 'per_page', $2::int, 'total', $7::bigint, 'last_page', greatest(1, ceil($7::numeric / $2)),
  ${sync ? `'next_cursor', '0.0',` : ''}
  'totals', json_build_object('income', $8::numeric, 'expenses', $9::numeric, 'net', $8::numeric - $9::numeric)))::text as body`;
}

export interface Floor {
  url: string;
  close(): Promise<void>;
}

/** The floor server for `userId`'s transactions on the database at `connectionString` (a pool of `poolSize`). */
export async function startFloor(connectionString: string, userId: number, poolSize = 10): Promise<Floor> {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  const counted = (
    await pool.query(
      `select count(*) filter (where deleted_at is null) as live,
        coalesce(sum(amount) filter (where deleted_at is null and type = 'income'), 0) as income,
        coalesce(sum(amount) filter (where deleted_at is null and type = 'expense'), 0) as expenses
       from transactions where user_id = $1`,
      [userId],
    )
  ).rows[0] as { live: string; income: string; expenses: string };
  const statements = { list: pageStatement(false), sync: pageStatement(true) };
  const server = http.createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? '/', 'http://floor');
      const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 20));
      const page = Number(url.searchParams.get('page') ?? 1);
      const wallet = url.searchParams.get('wallet_ids');
      const since = url.searchParams.get('synced_since');
      // named: one prepared statement per connection, as the service's hot statements are
      const text = since ? statements.sync : statements.list;
      const result = await pool.query({
        name: since ? 'floor-sync' : 'floor-list',
        text,
        values: [userId, limit, (page - 1) * limit, wallet ? Number(wallet) : null, since, page, counted.live, counted.income, counted.expenses],
      });
      const body = result.rows[0].body as string;
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      response.end(body);
    } catch (error) {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
    },
  };
}
