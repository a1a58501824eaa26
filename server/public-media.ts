// Images of outreach e-mails are public: mail clients load them without a token. They are
// served from storage at /storage/outreach/<name>, and nothing else in storage is.
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { errorBody } from './envelope.js';
import type { FileStorage } from './storage.js';

const PREFIX = 'outreach';
const CONTENT_TYPES: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp' };
/** The names storage.put gives: a UUID and one of the image extensions. */
const NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(jpg|png|gif|webp)$/;

/** The absolute public address of a stored outreach image (key `outreach/<name>`). */
export function publicMediaUrl(config: Config, key: string): string {
  return `${config.publicUrl}/storage/${key}`;
}

export function registerPublicMedia(app: FastifyInstance, storage: FileStorage): void {
  app.get<{ Params: { name: string } }>(`/storage/${PREFIX}/:name`, async (request, reply) => {
    const match = NAME.exec(request.params.name);
    // an unreachable store throws (503 in the envelope); only a missing file is 404
    const stored = match ? await storage.get(`${PREFIX}/${request.params.name}`) : undefined;
    if (!match || !stored) return reply.code(404).send(errorBody('File not found.'));
    if (stored.size !== undefined) reply.header('content-length', stored.size);
    return reply
      .header('content-type', CONTENT_TYPES[match[1]])
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(stored.body);
  });
}
