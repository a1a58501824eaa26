// 037 Standard Webhooks secrets: an endpoint's secret is kept as the specification shows it,
// `whsec_<base64 of the key bytes>`, and a rotation keeps the replaced secret for a grace period
// (WEBHOOK_SECRET_GRACE), during which every attempt is signed with both.
//
// Non-obvious choices:
// - Existing secrets (base64url of 32 random bytes, migration 034) keep their key bytes: they
//   are rewritten as `whsec_` + the same bytes in standard base64, so nothing has to be rotated.
//   Their receivers read the secret the same way (docs/webhooks.md, "Endpoints made before").
//   Every such secret is 43 characters, so one `=` pads it.
// - previous_secret and previous_secret_until are set together by a rotation; a delivery signs
//   with previous_secret only while previous_secret_until is in the future.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'timestamptz')
    .execute();
  await standardSecrets(db);
}

/** Rewrites the secrets kept in 034's form (base64url, 43 characters) as `whsec_<base64>` of the same bytes. */
export async function standardSecrets(db: Kysely<any>): Promise<void> {
  await sql`
    update webhook_endpoints set secret = 'whsec_' || translate(secret, '-_', '+/') || '='
     where secret not like 'whsec\_%' and length(secret) = 43`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    update webhook_endpoints set secret = rtrim(translate(substr(secret, 7), '+/', '-_'), '=')
     where secret like 'whsec\_%'`.execute(db);
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret').dropColumn('previous_secret_until').execute();
}
