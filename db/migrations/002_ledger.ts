// 002 ledger: the money core. files, icons, wallets, groups, parties, categories, transfers,
// transactions, transaction_categories, recurring_rules, refunds.
//
// Non-obvious choices:
// - Every reference to another user-owned record is a composite foreign key
//   (x_id, user_id) -> parent (id, user_id), so a row can never point at another user's wallet,
//   party, category... even if a handler forgets a check. Optional links use
//   `on delete set null (x_id)` (PostgreSQL 15), which clears the link and keeps user_id.
// - Finance rows are soft-deleted; foreign-key actions only matter for hard deletes, which happen
//   when the user is deleted (everything cascades from users). Wallet references are
//   `no action`: a wallet that still has transactions or transfers cannot be hard-deleted by
//   mistake, while deleting the user still removes everything in one statement.
// - wallets.balance is the maintained balance (opening_balance + live transactions, transfer legs
//   included), written in the same database transaction as every change that affects it.
// - Slugs are unique per user among live rows only (partial unique index), so re-creating a
//   deleted record's name works.
// - transactions.datetime is NOT NULL (default now()): lists, stats and budget windows all need it.
// - transactions.is_refund / refund_of_transaction_id are the flags budget queries read; the
//   refunds table is the synced record of the same fact. Handlers write both in one transaction.
//   Un-marking a refund soft-deletes the refunds row (a tombstone for sync) and clears the flags;
//   marking again revives that row (refund_transaction_id is unique over all rows).
// - Materialised recurring occurrences carry (recurring_parent_id, recurring_occurrence_at),
//   unique together, so a job that runs twice cannot create an occurrence twice.
// - A transfer is one transfers row plus two legs (transactions with transfer_id); at most one
//   live leg per type per transfer. received_amount = amount x exchange_rate (rounded, 4 dp).
// - files: one table for every stored blob (transaction attachments, icon images, chat
//   attachments, import uploads, outreach media). `model` says what it belongs to; the link to
//   a transaction (and, from 006, a chat message) is a real foreign key, checked to agree with
//   `model`. Icons point at their image through icons.file_id. Deleting rows never deletes
//   blobs: whoever hard-deletes (account deletion) removes the user's blobs first.
// - icons are referenced from their owner (wallets/groups/parties/categories.icon_id).
import { sql, type Kysely } from 'kysely';
import {
  addSyncIndexes,
  oneOf,
  ownedFk,
  withId,
  withOwnerKey,
  withSync,
  withTimestamps,
  withUser,
} from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // ---- files and icons -------------------------------------------------------------------
  await db.schema
    .createTable('files')
    .$call(withId)
    .$call(withUser)
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'bigint')
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('original_name', 'text')
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('metadata', 'jsonb')
    .$call(withTimestamps)
    .$call((tb) => withOwnerKey(tb, 'files'))
    .addCheckConstraint(
      'files_model_check',
      oneOf('model', ['transaction', 'icon', 'chat_message', 'import', 'outreach']),
    )
    .addCheckConstraint('files_type_check', oneOf('type', ['image', 'pdf', 'document', 'icon', 'emoji']))
    .addCheckConstraint('files_size_check', sql`size >= 0`)
    .addCheckConstraint(
      'files_transaction_model_check',
      sql`(model = 'transaction') = (transaction_id is not null)`,
    )
    .execute();
  await db.schema.createIndex('files_user_id_idx').on('files').column('user_id').execute();

  await db.schema
    .createTable('icons')
    .$call(withId)
    .$call(withUser)
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('content', 'text')
    .addColumn('file_id', 'bigint')
    .$call(withTimestamps)
    .$call((tb) => withOwnerKey(tb, 'icons'))
    .addCheckConstraint('icons_type_check', oneOf('type', ['icon', 'emoji', 'image']))
    .execute();
  await ownedFk(db, 'icons', 'file_id', 'files', 'set null');
  await db.schema.createIndex('icons_user_id_idx').on('icons').column('user_id').execute();
  await db.schema
    .createIndex('icons_file_id_idx')
    .on('icons')
    .column('file_id')
    .where(sql.ref('file_id'), 'is not', null)
    .execute();

  // ---- wallets, groups, parties, categories ------------------------------------------------
  await db.schema
    .createTable('wallets')
    .$call(withId)
    .$call(withUser)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('currency', 'char(3)', (c) => c.notNull())
    .addColumn('opening_balance', 'numeric(19, 4)', (c) => c.notNull().defaultTo(0))
    .addColumn('balance', 'numeric(19, 4)', (c) => c.notNull().defaultTo(0))
    .addColumn('icon_id', 'bigint')
    .$call(withSync)
    .$call((tb) => withOwnerKey(tb, 'wallets'))
    .addCheckConstraint('wallets_type_check', oneOf('type', ['bank', 'cash', 'credit_card', 'mobile']))
    .addCheckConstraint('wallets_currency_check', sql`currency ~ '^[A-Z]{3}$'`)
    .addCheckConstraint('wallets_name_check', sql`name <> ''`)
    .execute();

  await db.schema
    .createTable('groups')
    .$call(withId)
    .$call(withUser)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('icon_id', 'bigint')
    .$call(withSync)
    .$call((tb) => withOwnerKey(tb, 'groups'))
    .addCheckConstraint('groups_name_check', sql`name <> ''`)
    .execute();

  await db.schema
    .createTable('parties')
    .$call(withId)
    .$call(withUser)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text')
    .addColumn('description', 'text')
    .addColumn('icon_id', 'bigint')
    .$call(withSync)
    .$call((tb) => withOwnerKey(tb, 'parties'))
    .addCheckConstraint(
      'parties_type_check',
      oneOf('type', [
        'individual',
        'organization',
        'business',
        'partnership',
        'non_profit',
        'government_agency',
        'educational_institution',
        'healthcare_provider',
      ]),
    )
    .addCheckConstraint('parties_name_check', sql`name <> ''`)
    .execute();

  await db.schema
    .createTable('categories')
    .$call(withId)
    .$call(withUser)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('icon_id', 'bigint')
    .$call(withSync)
    .$call((tb) => withOwnerKey(tb, 'categories'))
    .addCheckConstraint('categories_type_check', oneOf('type', ['income', 'expense']))
    .addCheckConstraint('categories_name_check', sql`name <> ''`)
    .execute();

  for (const table of ['wallets', 'groups', 'parties', 'categories']) {
    await addSyncIndexes(db, table);
    await ownedFk(db, table, 'icon_id', 'icons', 'set null');
    // name lookups ("already exists", seed-defaults, import auto-create) are case-insensitive
    await sql`create index ${sql.id(`${table}_user_name_idx`)} on ${sql.table(table)}
      (user_id, lower(name)) where deleted_at is null`.execute(db);
  }
  for (const table of ['wallets', 'groups', 'categories']) {
    await db.schema
      .createIndex(`${table}_user_slug_key`)
      .on(table)
      .columns(['user_id', 'slug'])
      .unique()
      .where(sql.ref('deleted_at'), 'is', null)
      .execute();
  }

  // ---- transfers ---------------------------------------------------------------------------
  await db.schema
    .createTable('transfers')
    .$call(withId)
    .$call(withUser)
    .addColumn('from_wallet_id', 'bigint', (c) => c.notNull())
    .addColumn('to_wallet_id', 'bigint', (c) => c.notNull())
    .addColumn('amount', 'numeric(19, 4)', (c) => c.notNull())
    .addColumn('received_amount', 'numeric(19, 4)', (c) => c.notNull())
    .addColumn('exchange_rate', 'numeric(24, 10)', (c) => c.notNull().defaultTo(1))
    .addColumn('datetime', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .$call(withSync)
    .$call((tb) => withOwnerKey(tb, 'transfers'))
    .addCheckConstraint('transfers_amount_check', sql`amount > 0`)
    .addCheckConstraint('transfers_received_amount_check', sql`received_amount > 0`)
    .addCheckConstraint('transfers_exchange_rate_check', sql`exchange_rate > 0`)
    .addCheckConstraint('transfers_wallets_check', sql`from_wallet_id <> to_wallet_id`)
    .execute();
  await ownedFk(db, 'transfers', 'from_wallet_id', 'wallets', 'no action');
  await ownedFk(db, 'transfers', 'to_wallet_id', 'wallets', 'no action');
  await addSyncIndexes(db, 'transfers');
  await db.schema
    .createIndex('transfers_user_datetime_idx')
    .on('transfers')
    .columns(['user_id', 'datetime desc', 'id desc'])
    .execute();
  await db.schema.createIndex('transfers_from_wallet_idx').on('transfers').column('from_wallet_id').execute();
  await db.schema.createIndex('transfers_to_wallet_idx').on('transfers').column('to_wallet_id').execute();

  // ---- transactions ------------------------------------------------------------------------
  await db.schema
    .createTable('transactions')
    .$call(withId)
    .$call(withUser)
    .addColumn('wallet_id', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount', 'numeric(19, 4)', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('datetime', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('intent', 'text', (c) => c.notNull().defaultTo('regular'))
    .addColumn('party_id', 'bigint')
    .addColumn('group_id', 'bigint')
    .addColumn('transfer_id', 'bigint')
    .addColumn('is_refund', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('refund_of_transaction_id', 'bigint')
    .addColumn('recurring_parent_id', 'bigint')
    .addColumn('recurring_occurrence_at', 'timestamptz')
    .addColumn('metadata', 'jsonb')
    .$call(withSync)
    .$call((tb) => withOwnerKey(tb, 'transactions'))
    .addCheckConstraint('transactions_type_check', oneOf('type', ['income', 'expense']))
    .addCheckConstraint('transactions_amount_check', sql`amount > 0`)
    .addCheckConstraint(
      'transactions_intent_check',
      oneOf('intent', [
        'regular',
        'loan_received',
        'loan_repayment',
        'debt_owed',
        'debt_settled',
        'investment_buy',
        'investment_return',
        'gift',
        'fee',
      ]),
    )
    .addCheckConstraint('transactions_refund_income_check', sql`not is_refund or type = 'income'`)
    .addCheckConstraint(
      'transactions_refund_of_check',
      sql`refund_of_transaction_id is null or (is_refund and refund_of_transaction_id <> id)`,
    )
    .addCheckConstraint(
      'transactions_recurring_check',
      sql`(recurring_parent_id is null) = (recurring_occurrence_at is null)`,
    )
    .execute();
  await ownedFk(db, 'transactions', 'wallet_id', 'wallets', 'no action');
  await ownedFk(db, 'transactions', 'party_id', 'parties', 'set null');
  await ownedFk(db, 'transactions', 'group_id', 'groups', 'set null');
  await ownedFk(db, 'transactions', 'transfer_id', 'transfers', 'cascade');
  await ownedFk(db, 'transactions', 'refund_of_transaction_id', 'transactions', 'set null');
  await ownedFk(db, 'transactions', 'recurring_parent_id', 'transactions', 'set null');
  await addSyncIndexes(db, 'transactions');
  await db.schema
    .createIndex('transactions_user_datetime_idx')
    .on('transactions')
    .columns(['user_id', 'datetime desc', 'id desc'])
    .execute();
  await db.schema
    .createIndex('transactions_wallet_datetime_idx')
    .on('transactions')
    .columns(['wallet_id', 'datetime'])
    .execute();
  // stats and budget progress: live rows of one user and type in a date window
  await sql`create index transactions_user_type_datetime_idx
    on transactions (user_id, type, datetime) include (amount, wallet_id, transfer_id)
    where deleted_at is null`.execute(db);
  for (const column of ['party_id', 'group_id', 'refund_of_transaction_id']) {
    await db.schema
      .createIndex(`transactions_${column}_idx`)
      .on('transactions')
      .column(column)
      .where(sql.ref(column), 'is not', null)
      .execute();
  }
  await db.schema
    .createIndex('transactions_transfer_id_idx')
    .on('transactions')
    .column('transfer_id')
    .where(sql.ref('transfer_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('transactions_transfer_leg_key')
    .on('transactions')
    .columns(['transfer_id', 'type'])
    .unique()
    .where(sql<boolean>`transfer_id is not null and deleted_at is null`)
    .execute();
  await db.schema
    .createIndex('transactions_recurring_occurrence_key')
    .on('transactions')
    .columns(['recurring_parent_id', 'recurring_occurrence_at'])
    .unique()
    .where(sql.ref('recurring_parent_id'), 'is not', null)
    .execute();

  await ownedFk(db, 'files', 'transaction_id', 'transactions', 'cascade');
  await db.schema
    .createIndex('files_transaction_id_idx')
    .on('files')
    .column('transaction_id')
    .where(sql.ref('transaction_id'), 'is not', null)
    .execute();

  // ---- transaction links, recurring rules, refunds -------------------------------------------
  await db.schema
    .createTable('transaction_categories')
    .addColumn('transaction_id', 'bigint', (c) => c.notNull())
    .addColumn('category_id', 'bigint', (c) => c.notNull())
    .$call(withUser)
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('transaction_categories_pkey', ['transaction_id', 'category_id'])
    .execute();
  await ownedFk(db, 'transaction_categories', 'transaction_id', 'transactions', 'cascade');
  await ownedFk(db, 'transaction_categories', 'category_id', 'categories', 'cascade');
  await db.schema
    .createIndex('transaction_categories_category_idx')
    .on('transaction_categories')
    .columns(['category_id', 'transaction_id'])
    .execute();

  await db.schema
    .createTable('recurring_rules')
    .$call(withId)
    .$call(withUser)
    .addColumn('transaction_id', 'bigint', (c) => c.notNull().unique())
    .addColumn('recurrence_period', 'text', (c) => c.notNull())
    .addColumn('recurrence_interval', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('recurrence_ends_at', 'timestamptz')
    .addColumn('next_scheduled_at', 'timestamptz', (c) => c.notNull())
    .$call(withTimestamps)
    .addCheckConstraint(
      'recurring_rules_period_check',
      oneOf('recurrence_period', ['daily', 'weekly', 'monthly', 'yearly']),
    )
    .addCheckConstraint('recurring_rules_interval_check', sql`recurrence_interval >= 1`)
    .execute();
  await ownedFk(db, 'recurring_rules', 'transaction_id', 'transactions', 'cascade');
  await db.schema
    .createIndex('recurring_rules_next_scheduled_idx')
    .on('recurring_rules')
    .column('next_scheduled_at')
    .execute();
  await db.schema.createIndex('recurring_rules_user_id_idx').on('recurring_rules').column('user_id').execute();

  await db.schema
    .createTable('refunds')
    .$call(withId)
    .$call(withUser)
    .addColumn('refund_transaction_id', 'bigint', (c) => c.notNull().unique())
    .addColumn('original_transaction_id', 'bigint')
    .$call(withSync)
    .addCheckConstraint(
      'refunds_original_check',
      sql`original_transaction_id is null or original_transaction_id <> refund_transaction_id`,
    )
    .execute();
  await ownedFk(db, 'refunds', 'refund_transaction_id', 'transactions', 'cascade');
  await ownedFk(db, 'refunds', 'original_transaction_id', 'transactions', 'set null');
  await addSyncIndexes(db, 'refunds');
  await db.schema
    .createIndex('refunds_original_transaction_idx')
    .on('refunds')
    .column('original_transaction_id')
    .where(sql.ref('original_transaction_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'refunds',
    'recurring_rules',
    'transaction_categories',
    'files', // holds a foreign key to transactions; icons.file_id goes with it (cascade)
  ]) {
    await db.schema.dropTable(table).cascade().execute();
  }
  for (const table of ['transactions', 'transfers', 'categories', 'parties', 'groups', 'wallets', 'icons']) {
    await db.schema.dropTable(table).execute();
  }
}
