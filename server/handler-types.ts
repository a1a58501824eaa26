// Types that tie each handler to its operation in the spec: parameters, body and result
// come from generated/api.ts, so a handler that reads a field the spec does not have, or
// returns the wrong shape, fails to compile.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { operations } from '../generated/api.js';
import type { OperationId, PublicOperationId } from '../generated/operations.js';
import type { Database } from '../db/schema.js';
import type { UserRecord } from '../db/users.js';
import type { UploadedFiles } from './multipart.js';
import type { AppServices } from './services.js';
import type { RawResult, Result } from './envelope.js';

type Operation<O extends OperationId> = operations[O];

type Section<O extends OperationId, K extends 'path' | 'query'> =
  Operation<O> extends { parameters: infer P } ? (P extends { [key in K]?: infer S } ? (S extends object ? S : {}) : {}) : {};

type BodyOf<C> = C extends { 'application/json': infer J } ? J : C extends { 'multipart/form-data': infer M } ? M : unknown;

export type RequestBody<O extends OperationId> =
  Operation<O> extends { requestBody: { content: infer C } }
    ? BodyOf<C>
    : Operation<O> extends { requestBody?: { content: infer C } }
      ? BodyOf<C> | undefined
      : undefined;

type DataOf<R> = R extends { content: { 'application/json': infer E } } ? (E extends { data?: infer D } ? D : never) : never;

type SuccessStatus<O extends OperationId> = keyof Operation<O>['responses'] & (200 | 201 | 202);

/** What a handler may return: one of its success responses' `data`, or a raw body. */
export type HandlerResult<O extends OperationId> =
  | { [S in SuccessStatus<O>]: Result<S, DataOf<Operation<O>['responses'][S]>> }[SuccessStatus<O>]
  | RawResult;

/** The authenticated account, loaded with its token in one query. */
export type AuthUser = UserRecord & {
  /** The token row this request authenticated with. */
  tokenId: number;
  /** The user's data version (db/migrations/032), read with the token: 0 before any change. */
  dataVersion: number;
  /** When that version was bumped; null before any change. */
  dataChangedAt: Date | null;
  /** The exchange rates' version, for the answers that convert with them. */
  ratesVersion: number | null;
};

export interface HandlerContext<O extends OperationId> {
  user: O extends PublicOperationId ? AuthUser | null : AuthUser;
  params: Section<O, 'path'>;
  query: Section<O, 'query'>;
  body: RequestBody<O>;
  /** Files of a multipart request, by field name (without `[]`); empty otherwise. */
  files: UploadedFiles;
  db: Kysely<Database>;
  services: AppServices;
  log: FastifyBaseLogger;
  request: FastifyRequest;
}

export type Handler<O extends OperationId> = (ctx: HandlerContext<O>) => Promise<HandlerResult<O>>;

export type Handlers = { [O in OperationId]: Handler<O> };
