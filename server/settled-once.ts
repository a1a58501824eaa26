// A value made once per process on first use (a key read from the database, say) and
// remembered; a failure (the database unreachable) is not, so the next use tries again.

export function settledOnce<T>(make: () => Promise<T>): () => Promise<T> {
  let settled: Promise<T> | undefined;
  return () =>
    (settled ??= make().catch((error: unknown) => {
      settled = undefined;
      throw error;
    }));
}
