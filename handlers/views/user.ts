// The account as the API shows it: never the password hash, never a token.
import type { components } from '../../generated/api.js';
import type { UserRecord } from '../../db/users.js';

export type UserView = components['schemas']['User'];

export function toUser(row: UserRecord, avatarUrl: string | null): UserView {
  return {
    id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    username: row.username,
    phone: row.phone,
    email_verified_at: row.email_verified_at?.toISOString() ?? null,
    avatar_url: avatarUrl,
    role: row.role,
    is_admin: row.role === 'admin',
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
