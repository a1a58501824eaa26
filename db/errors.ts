// Recognising database errors that are the client's doing rather than a fault.

/** True when `error` is PostgreSQL's unique violation (23505), optionally on one constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError?.code === '23505' && (constraint === undefined || pgError.constraint === constraint);
}
