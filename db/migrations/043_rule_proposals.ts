// 043 learned rules (issue 42, docs/rules.md "Learned rules"): the user's corrections of imported
// lines, and the rules proposed from them.
//
// - rule_proposals: one per user, line text (folded as rules fold it), kind (category or party)
//   and value; `state` open, dismissed (never offered again for that text and value) or accepted
//   (the rule it made, `rule_id`). A proposal is offered once two of its corrections stand.
// - rule_corrections: one per transaction and kind (a second correction of the same line moves
//   it to its new proposal), with the value it had before.
// - imported_lines: the counterparty and description of a legacy CSV import's row (POST
//   /v1/import), whose transactions no import suggestion names; statement confirms and bank syncs
//   are known by their suggestions. No foreign key to transactions (never hard-deleted but with
//   their user, whose cascade takes these rows): the import writes them a batch at a time.
// - Categories and parties are only soft-deleted: a trigger removes the proposals naming one
//   when it is deleted (their corrections go with them); a hard delete (the user's) cascades.
import { sql, type Kysely } from 'kysely';
import { oneOf, ownedFk, withId, withOwnerKey, withTimestamps, withUser } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rule_proposals')
    .$call(withId)
    .$call(withUser)
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('category_id', 'bigint')
    .addColumn('party_id', 'bigint')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('rule_id', 'bigint')
    .$call(withTimestamps)
    .$call((tb) => withOwnerKey(tb, 'rule_proposals'))
    .addCheckConstraint('rule_proposals_field_check', oneOf('field', ['counterparty', 'description']))
    .addCheckConstraint('rule_proposals_state_check', oneOf('state', ['open', 'dismissed', 'accepted']))
    .addCheckConstraint(
      'rule_proposals_value_check',
      sql`(kind = 'category' and category_id is not null and party_id is null) or (kind = 'party' and party_id is not null and category_id is null)`,
    )
    .execute();
  await ownedFk(db, 'rule_proposals', 'category_id', 'categories', 'cascade');
  await ownedFk(db, 'rule_proposals', 'party_id', 'parties', 'cascade');
  await ownedFk(db, 'rule_proposals', 'rule_id', 'rules', 'set null');
  await sql`create unique index rule_proposals_value_key on rule_proposals (user_id, field, key, kind, (coalesce(category_id, party_id)))`.execute(db);
  await sql`create index rule_proposals_category_idx on rule_proposals (category_id) where category_id is not null`.execute(db);
  await sql`create index rule_proposals_party_idx on rule_proposals (party_id) where party_id is not null`.execute(db);
  await sql`create index rule_proposals_rule_idx on rule_proposals (rule_id) where rule_id is not null`.execute(db);

  await db.schema
    .createTable('rule_corrections')
    .$call(withId)
    .$call(withUser)
    .addColumn('transaction_id', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('proposal_id', 'bigint', (c) => c.notNull())
    // the value before the correction: category ids, or the party id (empty when none)
    .addColumn('from_ids', sql`bigint[]`, (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('rule_corrections_transaction_kind_key', ['transaction_id', 'kind'])
    .addCheckConstraint('rule_corrections_kind_check', oneOf('kind', ['category', 'party']))
    .execute();
  await ownedFk(db, 'rule_corrections', 'transaction_id', 'transactions', 'cascade');
  await ownedFk(db, 'rule_corrections', 'proposal_id', 'rule_proposals', 'cascade');
  await db.schema.createIndex('rule_corrections_proposal_idx').on('rule_corrections').columns(['proposal_id', 'id']).execute();

  await db.schema
    .createTable('imported_lines')
    .addColumn('transaction_id', 'bigint', (c) => c.primaryKey())
    .$call(withUser)
    .addColumn('counterparty', 'text')
    .addColumn('description', 'text')
    .execute();

  // a soft-deleted category or party takes the proposals naming it along
  await sql`create function rule_proposals_forget_deleted() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'categories' then
        delete from rule_proposals where category_id = new.id and user_id = new.user_id;
      else
        delete from rule_proposals where party_id = new.id and user_id = new.user_id;
      end if;
      return null;
    end
  $$`.execute(db);
  for (const table of ['categories', 'parties']) {
    await sql`create trigger ${sql.id(`${table}_forget_rule_proposals`)} after update of deleted_at on ${sql.table(table)} for each row
      when (old.deleted_at is null and new.deleted_at is not null) execute function rule_proposals_forget_deleted()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['categories', 'parties']) await sql`drop trigger ${sql.id(`${table}_forget_rule_proposals`)} on ${sql.table(table)}`.execute(db);
  await sql`drop function rule_proposals_forget_deleted()`.execute(db);
  await db.schema.dropTable('imported_lines').execute();
  await db.schema.dropTable('rule_corrections').execute();
  await db.schema.dropTable('rule_proposals').execute();
}
