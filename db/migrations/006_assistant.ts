// 006 assistant: chat_sessions, chat_messages, agent_actions, and the link from files to chat
// messages (attachments).
//
// Non-obvious choices:
// - Every chat row carries user_id NOT NULL (the chat's owner), also assistant messages; `role`
//   says who wrote a message. Chats are hard-deleted (not synced); messages, actions and
//   attachments cascade.
// - chat_messages.status is null for user messages and pending -> processing -> completed|failed
//   for assistant replies; a partial index serves the worker that picks up pending replies.
// - agent_actions: one row per proposed action. idempotency_key is unique per user and becomes
//   the client id of what the action creates, so executing twice cannot create twice; the
//   confirm path claims the row (`update ... set status = 'confirmed' where status = 'proposed'`)
//   and records executed_resource_type/id. batch_id groups the members of a batch.
// - files.chat_message_id is added here (the files table predates chat_messages), with the same
//   model/foreign-key agreement check as transaction attachments.
import { sql, type Kysely } from 'kysely';
import { oneOf, ownedFk, withId, withOwnerKey, withTimestamps, withUser } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('chat_sessions')
    .$call(withId)
    .$call(withUser)
    .addColumn('title', 'text')
    .$call(withTimestamps)
    .$call((tb) => withOwnerKey(tb, 'chat_sessions'))
    .execute();
  await db.schema
    .createIndex('chat_sessions_user_created_idx')
    .on('chat_sessions')
    .columns(['user_id', 'created_at desc', 'id desc'])
    .execute();

  await db.schema
    .createTable('chat_messages')
    .$call(withId)
    .$call(withUser)
    .addColumn('chat_session_id', 'bigint', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('content', 'text')
    .addColumn('status', 'text')
    .addColumn('format_hint', 'text')
    .addColumn('language', 'text')
    .addColumn('result', 'jsonb')
    .addColumn('progress', 'jsonb')
    .addColumn('error', 'text')
    .addColumn('completed_at', 'timestamptz')
    .$call(withTimestamps)
    .$call((tb) => withOwnerKey(tb, 'chat_messages'))
    .addCheckConstraint('chat_messages_role_check', oneOf('role', ['user', 'assistant', 'system']))
    .addCheckConstraint(
      'chat_messages_status_check',
      oneOf('status', ['pending', 'processing', 'completed', 'failed']),
    )
    .addCheckConstraint(
      'chat_messages_format_hint_check',
      oneOf('format_hint', ['scalar', 'pair', 'record', 'list', 'pair_list', 'table', 'raw']),
    )
    .execute();
  await ownedFk(db, 'chat_messages', 'chat_session_id', 'chat_sessions', 'cascade');
  await db.schema
    .createIndex('chat_messages_session_created_idx')
    .on('chat_messages')
    .columns(['chat_session_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('chat_messages_open_idx')
    .on('chat_messages')
    .columns(['status', 'created_at'])
    .where(sql<boolean>`status in ('pending', 'processing')`)
    .execute();
  await db.schema.createIndex('chat_messages_user_id_idx').on('chat_messages').column('user_id').execute();

  await db.schema
    .createTable('agent_actions')
    .$call(withId)
    .$call(withUser)
    .addColumn('chat_session_id', 'bigint', (c) => c.notNull())
    .addColumn('chat_message_id', 'bigint')
    .addColumn('action_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('risk', 'text', (c) => c.notNull().defaultTo('high'))
    .addColumn('auto_confirm', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('proposed'))
    .addColumn('idempotency_key', 'uuid', (c) => c.notNull())
    .addColumn('batch_id', 'uuid')
    .addColumn('tool_name', 'text')
    .addColumn('error', 'text')
    .addColumn('result', 'jsonb')
    .addColumn('confirmed_at', 'timestamptz')
    .addColumn('executed_at', 'timestamptz')
    .addColumn('executed_resource_type', 'text')
    .addColumn('executed_resource_id', 'bigint')
    .$call(withTimestamps)
    .addCheckConstraint(
      'agent_actions_action_type_check',
      oneOf('action_type', [
        'transaction.create',
        'transaction.categorize',
        'transaction.attach_file',
        'transfer.create',
        'wallet.create',
        'category.create',
        'party.create',
      ]),
    )
    .addCheckConstraint('agent_actions_risk_check', oneOf('risk', ['low', 'high']))
    .addCheckConstraint(
      'agent_actions_status_check',
      oneOf('status', ['proposed', 'confirmed', 'executed', 'rejected', 'failed', 'expired']),
    )
    .addCheckConstraint(
      'agent_actions_executed_check',
      sql`status <> 'executed' or (executed_at is not null and executed_resource_type is not null)`,
    )
    .addUniqueConstraint('agent_actions_user_idempotency_key', ['user_id', 'idempotency_key'])
    .execute();
  await ownedFk(db, 'agent_actions', 'chat_session_id', 'chat_sessions', 'cascade');
  await ownedFk(db, 'agent_actions', 'chat_message_id', 'chat_messages', 'set null');
  await db.schema
    .createIndex('agent_actions_session_idx')
    .on('agent_actions')
    .columns(['chat_session_id', 'id'])
    .execute();
  await db.schema
    .createIndex('agent_actions_batch_idx')
    .on('agent_actions')
    .columns(['batch_id', 'id'])
    .where(sql.ref('batch_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('agent_actions_chat_message_idx')
    .on('agent_actions')
    .column('chat_message_id')
    .where(sql.ref('chat_message_id'), 'is not', null)
    .execute();

  await db.schema.alterTable('files').addColumn('chat_message_id', 'bigint').execute();
  await db.schema
    .alterTable('files')
    .addCheckConstraint(
      'files_chat_message_model_check',
      sql`(model = 'chat_message') = (chat_message_id is not null)`,
    )
    .execute();
  await ownedFk(db, 'files', 'chat_message_id', 'chat_messages', 'cascade');
  await db.schema
    .createIndex('files_chat_message_id_idx')
    .on('files')
    .column('chat_message_id')
    .where(sql.ref('chat_message_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  // drops its index, check and foreign key with it
  await db.schema.alterTable('files').dropColumn('chat_message_id').execute();
  for (const table of ['agent_actions', 'chat_messages', 'chat_sessions']) {
    await db.schema.dropTable(table).execute();
  }
}
