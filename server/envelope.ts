// What handlers return, and the envelope the server wraps it in. Handlers never build the
// envelope themselves: they return `ok(data)` / `created(data)` and the route sends
// `{success: true, message, data}`.

export const DEFAULT_MESSAGE = 'Operation successful';

export interface Result<Status extends number = number, Data = unknown> {
  status: Status;
  data: Data;
  message?: string;
}

/** A response that is not JSON (file downloads, redirects): sent as it is. */
export interface RawResult {
  status: number;
  raw: true;
  headers: Record<string, string>;
  body: Buffer | NodeJS.ReadableStream | string;
}

export const ok = <Data>(data: Data, message?: string): Result<200, Data> => ({ status: 200, data, message });

export const created = <Data>(data: Data, message?: string): Result<201, Data> => ({ status: 201, data, message });

/** Success without a payload: deletes and state changes answer `data: null`. */
export const done = (message?: string): Result<200, null> => ({ status: 200, data: null, message });

export function isRaw(result: Result | RawResult): result is RawResult {
  return (result as RawResult).raw === true;
}

export function successBody(result: Result): { success: true; message: string; data: unknown } {
  return { success: true, message: result.message ?? DEFAULT_MESSAGE, data: result.data ?? null };
}

export function errorBody(message: string, errors?: Record<string, string[]>, requestId?: string) {
  return {
    success: false as const,
    message,
    ...(errors ? { errors } : {}),
    ...(requestId ? { request_id: requestId } : {}),
  };
}
