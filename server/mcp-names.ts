// Arguments an MCP tool takes by name instead of by id (an x-mcp mark's `byName`, e.g. the
// reference's `wallet_name` in record-transaction): a model that was told "pay 12 from Cash"
// need not list the wallets first. The name is resolved to the id here, for the token's user
// only, and the operation then runs with the id exactly as over REST (which takes ids only:
// REST clients hold ids, and an optional `wallet_id` would weaken the create's contract).
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { liveRecordsNamed } from '../db/sync.js';
import { invalidField } from './errors.js';

/** The id arguments whose records a tool may take by name: their table and what the messages call one. */
export const NAMED_RECORDS = {
  wallet_id: { table: 'wallets', label: 'wallet' },
} as const satisfies Record<string, { table: Parameters<typeof liveRecordsNamed>[1]; label: string }>;

/**
 * `args` with each `<x>_name` of `byName` replaced by its id argument: the user's live record of
 * exactly that name, else the only one of that name regardless of case. 422 on the name's
 * argument when none or several match, or when the id given beside it names another record.
 */
export async function idsForNames(db: Kysely<Database>, userId: number, byName: Record<string, string>, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const resolved = { ...args };
  for (const [nameArg, idArg] of Object.entries(byName)) {
    const name = resolved[nameArg];
    if (name === undefined || name === null) continue;
    delete resolved[nameArg];
    const record = NAMED_RECORDS[idArg as keyof typeof NAMED_RECORDS];
    // the tool's input schema says a string of 1-255 characters; the schema is not checked before this
    if (!record || typeof name !== 'string' || name.trim() === '' || name.length > 255) throw invalidField(nameArg, `The ${nameArg} must be the name of one of your ${record?.table ?? 'records'}.`);
    const found = await liveRecordsNamed(db, record.table, userId, name.trim());
    const exact = found.filter((row) => row.name === name.trim());
    const match = exact.length === 1 ? exact[0] : exact.length === 0 && found.length === 1 ? found[0] : undefined;
    if (!match) {
      throw invalidField(
        nameArg,
        found.length === 0 ? `None of your ${record.table} is named "${name}".` : `Several of your ${record.table} are named "${name}": give ${idArg} instead.`,
      );
    }
    if (resolved[idArg] !== undefined && resolved[idArg] !== null && resolved[idArg] !== match.id) throw invalidField(nameArg, `The ${record.label} named "${name}" is not the one ${idArg} gives.`);
    resolved[idArg] = match.id;
  }
  return resolved;
}
