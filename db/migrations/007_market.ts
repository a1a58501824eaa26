// 007 market: exchange_rates and asset_prices, the stored copies of external quotes.
//
// Non-obvious choices:
// - Both are global caches, not user-owned (no user_id): a rate is the same for everyone.
//   A user's manual rates live in the configuration key `manual-exchange-rates`.
// - exchange_rates: one row per (base, target) pair, upserted on refresh; rate = units of
//   target per 1 unit of base, numeric(24,10). fetched_at decides freshness (the reference
//   trusts a direct row for 60 minutes, a reverse row at any age).
// - asset_prices: one row per (provider, asset_id, vs_currency); asset_id is the provider's id
//   (e.g. CoinGecko "bitcoin"), vs_currency lower-case as the provider uses it. Prices use
//   numeric(24,10) too: coins can be worth fractions of a cent.
import { sql, type Kysely } from 'kysely';
import { withId, withTimestamps } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('exchange_rates')
    .$call(withId)
    .addColumn('base_currency', 'char(3)', (c) => c.notNull())
    .addColumn('target_currency', 'char(3)', (c) => c.notNull())
    .addColumn('rate', 'numeric(24, 10)', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('remote'))
    .addColumn('fetched_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .$call(withTimestamps)
    .addUniqueConstraint('exchange_rates_pair_key', ['base_currency', 'target_currency'])
    .addCheckConstraint('exchange_rates_rate_check', sql`rate > 0`)
    .addCheckConstraint(
      'exchange_rates_currency_check',
      sql`base_currency ~ '^[A-Z]{3}$' and target_currency ~ '^[A-Z]{3}$' and base_currency <> target_currency`,
    )
    .execute();
  await db.schema
    .createIndex('exchange_rates_target_idx')
    .on('exchange_rates')
    .columns(['target_currency', 'base_currency'])
    .execute();

  await db.schema
    .createTable('asset_prices')
    .$call(withId)
    .addColumn('provider', 'text', (c) => c.notNull().defaultTo('coingecko'))
    .addColumn('asset_id', 'text', (c) => c.notNull())
    .addColumn('symbol', 'text')
    .addColumn('name', 'text')
    .addColumn('vs_currency', 'text', (c) => c.notNull())
    .addColumn('price', 'numeric(24, 10)', (c) => c.notNull())
    .addColumn('fetched_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .$call(withTimestamps)
    .addUniqueConstraint('asset_prices_quote_key', ['provider', 'asset_id', 'vs_currency'])
    .addCheckConstraint('asset_prices_price_check', sql`price >= 0`)
    .addCheckConstraint('asset_prices_vs_currency_check', sql`vs_currency ~ '^[a-z]{3}$'`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('asset_prices').execute();
  await db.schema.dropTable('exchange_rates').execute();
}
