// 040 rules: the user's rules that file incoming transactions (domain/rules), a synced record
// like categories (client id, sync stamps, tombstones, data version).
//
// - conditions and actions are jsonb in the API's own shape: a rule is read whole, evaluated in
//   the process (domain/rules/evaluate.ts), never queried by its parts.
// - position orders the rules (ties by id); the live rules of a user in that order are what
//   every write that creates a transaction reads, hence the partial index.
// - The references inside actions (categories, wallets, groups, parties) are checked by the
//   handler when the rule is written; a record deleted later simply stops being applied.
import { sql, type Kysely } from 'kysely';
import { addSyncIndexes, oneOf, ownedFk, withId, withOwnerKey, withSync, withTimestamps, withUser } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rules')
    .$call(withId)
    .$call(withUser)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('stop_after', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('match', 'text', (c) => c.notNull().defaultTo('all'))
    .addColumn('conditions', 'jsonb', (c) => c.notNull())
    .addColumn('actions', 'jsonb', (c) => c.notNull())
    // bumped by every update (trigger below): with the row count, a version of the user's rule set
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(1))
    .$call(withSync)
    .$call((tb) => withOwnerKey(tb, 'rules'))
    .addCheckConstraint('rules_match_check', oneOf('match', ['all', 'any']))
    .addCheckConstraint('rules_name_check', sql`name <> ''`)
    .execute();
  await addSyncIndexes(db, 'rules');
  // sync feeds page by (user_id, last_synced_at, id) since 012
  await sql`drop index rules_user_updated_idx`.execute(db);
  await db.schema.createIndex('rules_user_synced_idx').on('rules').columns(['user_id', 'last_synced_at', 'id']).execute();
  await sql`create index rules_user_order_idx on rules (user_id, position, id) where deleted_at is null`.execute(db);
  await sql`create trigger rules_sync_stamp before insert or update on rules for each row execute function sync_stamp()`.execute(db);
  // count(*) and sum(version) of a user's rows (deleted ones included: a delete is an update)
  // change with every write of a rule, which is what a per-process cache of compiled rules keys on
  await sql`create function rules_bump_version() returns trigger language plpgsql as $$
    begin
      new.version := old.version + 1;
      return new;
    end
  $$`.execute(db);
  await sql`create trigger rules_version before update on rules for each row execute function rules_bump_version()`.execute(db);
  await sql`create constraint trigger rules_user_version after insert or update or delete on rules
    deferrable initially deferred for each row execute function bump_user_version('user_id')`.execute(db);

  // "apply to existing": one run per request, worked through in batches by jobs/apply-rule.ts
  // after the last transaction id it finished (a crashed worker's run resumes there)
  await db.schema
    .createTable('rule_applications')
    .$call(withId)
    .$call(withUser)
    .addColumn('rule_id', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('running'))
    .addColumn('after_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('processed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('changed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total', 'integer', (c) => c.notNull())
    .$call(withTimestamps)
    .addCheckConstraint('rule_applications_state_check', oneOf('state', ['running', 'done']))
    .execute();
  await ownedFk(db, 'rule_applications', 'rule_id', 'rules', 'cascade');
  await db.schema.createIndex('rule_applications_rule_idx').on('rule_applications').columns(['rule_id', 'id']).execute();
  await sql`create index rule_applications_running_idx on rule_applications (id) where state = 'running'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rule_applications').execute();
  await db.schema.dropTable('rules').execute();
  await sql`drop function rules_bump_version()`.execute(db);
}
