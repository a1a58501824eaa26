// Failures a handler can throw. The server turns each into the error envelope
// `{success: false, message, errors?}` with its status; nothing else reaches the client.

export type FieldErrors = Record<string, string[]>;

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message = 'The request body could not be parsed.') => new HttpError(400, message);

export const unauthorized = (message = 'Unauthenticated. Please log in to access this resource.') =>
  new HttpError(401, message);

export const forbidden = (message = 'You are not allowed to do this.') => new HttpError(403, message);

/** 404 for an unknown id and for another user's record alike: never reveal which. */
export const notFound = (what = 'Resource') => new HttpError(404, `${what} not found.`);

export const conflict = (message: string) => new HttpError(409, message);

export const payloadTooLarge = (limitBytes: number) =>
  new HttpError(413, `The request is larger than the limit of ${Math.floor(limitBytes / (1024 * 1024))} MB.`);

export const unsupportedMediaType = (accepted: readonly string[]) =>
  new HttpError(415, `The Content-Type must be ${accepted.join(' or ')}.`);

/** 422 with messages keyed by field; `fieldErrors` may be one field or many. */
export function validationFailed(fieldErrors: FieldErrors, message?: string): HttpError {
  const first = Object.values(fieldErrors)[0]?.[0];
  return new HttpError(422, message ?? first ?? 'The given data was invalid.', fieldErrors);
}

/** Shorthand for the common single-field case. */
export const invalidField = (field: string, message: string) => validationFailed({ [field]: [message] });

export const notImplemented = (operationId: string) =>
  new HttpError(501, `The operation ${operationId} is not implemented yet.`);
