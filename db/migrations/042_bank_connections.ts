// 042 bank connections (docs/bank-sync.md): a user's connections to a bank bridge (SimpleFIN),
// the bank accounts each sees (linked to a wallet or not), the bank's line ids already taken
// into the ledger, and the pending lines held apart.
//
// Non-obvious choices:
// - `secret` is the bridge's access URL sealed with AES-256-GCM under a key derived from the
//   app key (server/bank-secrets.ts); it is never answered.
// - bank_lines keeps every line id a sync took (unique per account): a line seen again (the
//   overlap of the next window, a second sync racing the first) is never imported twice. Its
//   transaction_id is the transaction made for it, or the existing one it duplicated.
// - bank_pending_lines is replaced whole by each sync: a pending line is never a transaction,
//   so when the bank posts it (the posted line is a new line) it is counted once.
// - requests_day/requests_count bound the requests to the bridge per connection and UTC day.
import { sql, type Kysely } from 'kysely';
import { oneOf, ownedFk, withId, withOwnerKey, withTimestamps, withUser } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('bank_connections')
    .$call(withId)
    .$call(withUser)
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('last_error', 'text')
    .addColumn('bridge_errors', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('failure_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_attempt_at', 'timestamptz')
    .addColumn('last_synced_at', 'timestamptz')
    .addColumn('next_sync_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('requests_day', 'date')
    .addColumn('requests_count', 'integer', (c) => c.notNull().defaultTo(0))
    .$call(withTimestamps)
    .$call((tb) => withOwnerKey(tb, 'bank_connections'))
    .addCheckConstraint('bank_connections_provider_check', oneOf('provider', ['simplefin']))
    .addCheckConstraint('bank_connections_status_check', oneOf('status', ['active', 'failing']))
    .execute();
  await db.schema.createIndex('bank_connections_user_idx').on('bank_connections').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('bank_connections_due_idx').on('bank_connections').column('next_sync_at').execute();

  await db.schema
    .createTable('bank_accounts')
    .$call(withId)
    .$call(withUser)
    .addColumn('connection_id', 'bigint', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('bank', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('balance', 'numeric(19, 4)', (c) => c.notNull())
    .addColumn('available_balance', 'numeric(19, 4)')
    .addColumn('balance_date', 'timestamptz', (c) => c.notNull())
    .addColumn('wallet_id', 'bigint')
    .addColumn('last_posted_date', 'text')
    .addColumn('missing_since', 'timestamptz')
    .$call(withTimestamps)
    .$call((tb) => withOwnerKey(tb, 'bank_accounts'))
    .addUniqueConstraint('bank_accounts_connection_external_key', ['connection_id', 'external_id'])
    .execute();
  await ownedFk(db, 'bank_accounts', 'connection_id', 'bank_connections', 'cascade');
  await ownedFk(db, 'bank_accounts', 'wallet_id', 'wallets', 'set null');
  await db.schema.createIndex('bank_accounts_wallet_idx').on('bank_accounts').column('wallet_id').execute();

  await db.schema
    .createTable('bank_lines')
    .$call(withId)
    .$call(withUser)
    .addColumn('bank_account_id', 'bigint', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('posted_date', 'text', (c) => c.notNull())
    .addColumn('amount', 'numeric(19, 4)', (c) => c.notNull())
    .addColumn('transaction_id', 'bigint')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('bank_lines_account_external_key', ['bank_account_id', 'external_id'])
    .execute();
  await ownedFk(db, 'bank_lines', 'bank_account_id', 'bank_accounts', 'cascade');

  await db.schema
    .createTable('bank_pending_lines')
    .$call(withId)
    .$call(withUser)
    .addColumn('bank_account_id', 'bigint', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('amount', 'numeric(19, 4)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('bank_pending_lines_account_external_key', ['bank_account_id', 'external_id'])
    .execute();
  await ownedFk(db, 'bank_pending_lines', 'bank_account_id', 'bank_accounts', 'cascade');
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('bank_pending_lines').execute();
  await db.schema.dropTable('bank_lines').execute();
  await db.schema.dropTable('bank_accounts').execute();
  await db.schema.dropTable('bank_connections').execute();
}
