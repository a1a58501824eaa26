// Password hashing: argon2id with the library's recommended parameters. The hash string
// carries its own parameters, so they can be raised later without breaking old hashes.
import argon2 from 'argon2';

export const MIN_PASSWORD_LENGTH = 8;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (!hash) {
    // Same cost as a real check, so timing does not tell whether an account exists.
    await argon2.hash(password, { type: argon2.argon2id });
    return false;
  }
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}
