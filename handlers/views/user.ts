// The account as the API shows it: never the password hash, never a token.
import type { components } from '../../generated/api.js';

export type UserView = components['schemas']['User'];

interface UserRow {
  id: number;
  email: string;
  first_name: string;
  last_name: string | null;
  username: string | null;
  phone: string | null;
  email_verified_at: Date | null;
  role: 'user' | 'admin';
  created_at: Date;
  updated_at: Date;
}

export function toUser(row: UserRow, avatarUrl: string | null): UserView {
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
