// Password hashing: argon2id. The hash string carries its own parameters, so they can be
// changed later (PASSWORD_HASH_*) without breaking old hashes: a login verifies with the
// parameters stored in the hash, and only new hashes take the configured ones.
import argon2 from 'argon2';

export const MIN_PASSWORD_LENGTH = 8;

/** argon2id's cost: memory in KiB, passes over it, lanes. */
export interface PasswordHashing {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** The argon2 library's recommended parameters (64 MiB, 3 passes, 4 lanes): production's default. */
export const STRONG_PASSWORD_HASHING: Readonly<PasswordHashing> = Object.freeze({ memoryCost: 65536, timeCost: 3, parallelism: 4 });

export function hashPassword(password: string, cost: PasswordHashing): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id, ...cost });
}

export async function verifyPassword(hash: string | null, password: string, cost: PasswordHashing): Promise<boolean> {
  if (!hash) {
    // Same cost as a real check, so timing does not tell whether an account exists.
    await hashPassword(password, cost);
    return false;
  }
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}
