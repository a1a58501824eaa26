// Request bodies of transaction writes (JSON or multipart, already typed by the contract) as
// the write path's entries and changes: the checks the schema cannot express (4 decimals,
// a recurrence end in the future, a period for a new rule) and the datetime rules.
import type { components } from '../../generated/api.js';
import { exceedsMoneyLimit, hasTooManyDecimals, moneyFromInput } from '../../domain/money.js';
import { invalidField } from '../../server/errors.js';
import { splitLinesFrom, withSplitCategories } from './transaction-splits.js';
import type { RecurrenceInput, TransactionChanges, TransactionEntry } from './transaction-writes.js';

type CreateBody = components['schemas']['TransactionCreateRequest'];
type UpdateBody = components['schemas']['TransactionUpdateRequest'];
type InputBody = components['schemas']['TransactionInput'];

/** A create body as a new entry, dated by `datetime`, `date` or `created_at`, else `now`. */
export function entryFromCreate(body: CreateBody, now: Date): TransactionEntry {
  if (body.is_recurring && !body.recurrence_period) {
    throw invalidField('recurrence_period', 'The recurrence period field is required when is recurring is true.');
  }
  return withSplitCategories({
    // type, amount and wallet_id are required by the schema
    type: body.type!,
    amount: amountFrom(body.amount!),
    walletId: body.wallet_id!,
    // an offline client's record made without a date happened when the client made it
    datetime: datetimeFrom(body) ?? (body.created_at ? new Date(body.created_at) : now),
    intent: body.intent,
    description: body.description,
    partyId: body.party_id,
    groupId: body.group_id,
    categoryIds: body.categories,
    recurrence: body.is_recurring ? (recurrenceFrom(body, now) as RecurrenceInput) : undefined,
    splits: splitLinesFrom(body.splits),
  });
}

/** An update body as changes: absent fields stay, `is_recurring` absent keeps the rule. */
export function changesFromUpdate(body: UpdateBody, now: Date): TransactionChanges {
  return {
    type: body.type,
    // absent in an update that only adopts a client id (the reference clients send that)
    amount: body.amount === undefined ? undefined : amountFrom(body.amount),
    walletId: body.wallet_id,
    datetime: datetimeFrom(body),
    intent: body.intent,
    description: body.description,
    partyId: body.party_id,
    groupId: body.group_id,
    categoryIds: body.categories,
    recurrence: body.is_recurring === undefined ? undefined : body.is_recurring ? recurrenceFrom(body, now) : null,
    splits: splitLinesFrom(body.splits),
  };
}

/** An amount as an exact decimal string: 422 beyond 4 decimals or the money columns' range. */
export function amountFrom(value: number): string {
  if (hasTooManyDecimals(value)) throw invalidField('amount', 'The amount may have at most 4 decimal places.');
  const amount = moneyFromInput(value);
  if (exceedsMoneyLimit(amount)) throw invalidField('amount', 'The amount is too large.');
  return amount;
}

/** `datetime`, else `date` at 00:00:00 UTC, else undefined. */
function datetimeFrom(body: InputBody): Date | undefined {
  if (body.datetime !== undefined) return new Date(body.datetime);
  if (body.date !== undefined) return new Date(`${body.date}T00:00:00Z`);
  return undefined;
}

/** The recurrence fields given with `is_recurring: true`; an end must lie in the future. */
function recurrenceFrom(body: InputBody, now: Date): Partial<RecurrenceInput> {
  let endsAt: Date | null | undefined = body.recurrence_ends_at === undefined ? undefined : null;
  if (body.recurrence_ends_at) {
    endsAt = new Date(body.recurrence_ends_at);
    if (endsAt.getTime() <= now.getTime()) throw invalidField('recurrence_ends_at', 'The recurrence ends at must be a date in the future.');
  }
  return { period: body.recurrence_period, interval: body.recurrence_interval, endsAt };
}
