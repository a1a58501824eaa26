// Records the transaction tests need, written straight to the database (so these tests do not
// depend on the wallet, category or transfer endpoints), and multipart bodies.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { TestApp } from './harness.js';

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e221bc330000000049454e44ae426082',
  'hex',
);

export interface FilePart {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

/** A multipart/form-data request: text fields (repeat a key for arrays) and file parts. */
export function multipart(fields: Array<[string, string]>, files: FilePart[] = []): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----test${randomUUID().replace(/-/g, '')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of fields) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const file of files) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`),
      file.data,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export function ledgerFixtures(api: TestApp) {
  const db = api.db;
  return {
    /** The "Main Wallet" made at registration (cash, USD, balance 0). */
    async mainWallet(userId: number): Promise<number> {
      const row = await db.selectFrom('wallets').select('id').where('user_id', '=', userId).where('name', '=', 'Main Wallet').executeTakeFirstOrThrow();
      return row.id;
    },

    async wallet(userId: number, options: { type?: 'bank' | 'cash' | 'credit_card' | 'mobile'; balance?: string; currency?: string } = {}): Promise<number> {
      const row = await db
        .insertInto('wallets')
        .values({
          user_id: userId,
          name: 'Test wallet',
          slug: `test-wallet-${randomUUID()}`,
          type: options.type ?? 'bank',
          currency: options.currency ?? 'USD',
          opening_balance: options.balance ?? '0',
          balance: options.balance ?? '0',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async category(userId: number, type: 'income' | 'expense' = 'expense'): Promise<number> {
      const name = `Category ${randomUUID().slice(0, 8)}`;
      const row = await db.insertInto('categories').values({ user_id: userId, name, slug: name.toLowerCase().replace(/ /g, '-'), type }).returning('id').executeTakeFirstOrThrow();
      return row.id;
    },

    async party(userId: number): Promise<number> {
      const row = await db.insertInto('parties').values({ user_id: userId, name: 'ACME Corp', type: 'business' }).returning('id').executeTakeFirstOrThrow();
      return row.id;
    },

    /** One of the groups made at registration. */
    async group(userId: number): Promise<number> {
      const row = await db.selectFrom('groups').select('id').where('user_id', '=', userId).orderBy('id').executeTakeFirstOrThrow();
      return row.id;
    },

    /** The stored balance as PostgreSQL's exact decimal string, e.g. '0.3000'. */
    async balance(walletId: number): Promise<string> {
      const row = await db.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow();
      return row.balance;
    },

    async setBalance(walletId: number, balance: string): Promise<void> {
      await db.updateTable('wallets').set({ balance, opening_balance: balance }).where('id', '=', walletId).execute();
    },

    /** Sets the configuration wallets-allow-negative-balance. */
    async allowNegative(userId: number, allowed: boolean): Promise<void> {
      const value = JSON.stringify(allowed);
      const updated = await db
        .updateTable('configurations')
        .set({ value, deleted_at: null })
        .where('user_id', '=', userId)
        .where('key', '=', 'wallets-allow-negative-balance')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) {
        await db.insertInto('configurations').values({ user_id: userId, key: 'wallets-allow-negative-balance', type: 'bool', value }).execute();
      }
    },

    async setTimeZone(userId: number, zone: string): Promise<void> {
      await db.insertInto('configurations').values({ user_id: userId, key: 'timezone', type: 'string', value: JSON.stringify(zone) }).execute();
    },

    /** A transfer with its two legs, balances moved as the transfer endpoint would. */
    async transfer(userId: number, from: number, to: number, amount: string): Promise<{ transferId: number; expenseLegId: number; incomeLegId: number }> {
      return db.transaction().execute(async (trx) => {
        const transfer = await trx
          .insertInto('transfers')
          .values({ user_id: userId, from_wallet_id: from, to_wallet_id: to, amount, received_amount: amount })
          .returning('id')
          .executeTakeFirstOrThrow();
        const leg = (type: 'income' | 'expense', walletId: number) =>
          trx
            .insertInto('transactions')
            .values({ user_id: userId, wallet_id: walletId, type, amount, transfer_id: transfer.id, description: 'Money transfer' })
            .returning('id')
            .executeTakeFirstOrThrow();
        const expense = await leg('expense', from);
        const income = await leg('income', to);
        await trx.updateTable('wallets').set({ balance: sql<string>`balance - ${amount}::numeric` }).where('id', '=', from).execute();
        await trx.updateTable('wallets').set({ balance: sql<string>`balance + ${amount}::numeric` }).where('id', '=', to).execute();
        return { transferId: transfer.id, expenseLegId: expense.id, incomeLegId: income.id };
      });
    },

    async count(table: 'transactions' | 'files' | 'recurring_rules' | 'refunds' | 'transaction_categories', userId: number): Promise<number> {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
