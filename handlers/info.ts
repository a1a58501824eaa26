// Info: what this server is, publicly. Issue 5 extends it; the shape is the spec's ServerInfo.
import { ok } from '../server/envelope.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';

async function getServerInfo({ services }: HandlerContext<'getServerInfo' | 'getServerInfoV1'>) {
  return ok({
    name: 'finance-service',
    version: services.specVersion,
    build: services.build,
    database: services.databaseKind,
    operations: services.operationCounts,
  });
}

export const infoHandlers = {
  getServerInfo,
  getServerInfoV1: getServerInfo,
} satisfies Partial<Handlers>;
