// Legacy CSV imports as the API shows them (spec: FileImport, FailedImport).
import type { components } from '../../generated/api.js';
import type { FailedImportRow, FileImportRow } from '../../db/imports.js';

type Schemas = components['schemas'];
export type FileImportView = Schemas['FileImport'];
export type FailedImportView = Schemas['FailedImport'];

export function toFileImport(row: FileImportRow): FileImportView {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    file_type: row.file_type,
    // `pending` in the database is what the API calls `queued`.
    status: row.status === 'pending' ? 'queued' : row.status,
    progress: row.progress,
    num_rows: row.num_rows,
    failed_imports_count: Number(row.failed_imports_count),
    error: row.error,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toFailedImport(row: FailedImportRow): FailedImportView {
  return {
    id: row.id,
    file_import_id: row.file_import_id,
    // Rows are always stored with their line; 1 stands in for a row from before that existed.
    row_number: row.row_number ?? 1,
    amount: row.amount,
    currency: row.currency,
    type: row.type,
    party: row.party,
    wallet: row.wallet,
    category: row.category,
    description: row.description,
    date: row.date,
    reason: row.reason,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
