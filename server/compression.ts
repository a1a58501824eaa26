// Answers compressed as the client's Accept-Encoding asks (br, gzip; zstd where this Node has it).
// Two paths, one negotiation and one set of levels:
// - the answers of `x-conditional` GETs (lists, sync pages, records: the JSON that is large and
//   asked for again) are compressed here, into bytes the body cache keeps (server/body-cache.ts);
// - every other answer (other JSON, the spec, the docs page's assets) goes through
//   @fastify/compress's onSend hook, which skips bodies that already carry a Content-Encoding.
// Never compressed: bodies under COMPRESS_THRESHOLD (the framing costs more than it saves), 304s
// and other answers without a body, and stored files (images, PDFs, octet-streams: not in the
// compressible types; no download is served by ranges, and a file would not be compressed if one
// were). The tag of a compressed answer is the same weak ETag as its identity answer's: a weak
// validator may be shared by representations that differ only in content coding (RFC 9110
// §8.8.1), so If-None-Match revalidates whichever coding the client kept.
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import fastifyCompress from '@fastify/compress';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export type Encoding = 'zstd' | 'br' | 'gzip';
export type Coding = Encoding | 'identity';

type Compress = (body: Buffer, options: object) => Promise<Buffer>;
const zstdCompress = (zlib as unknown as { zstdCompress?: (b: Buffer, o: object, cb: (e: Error | null, r: Buffer) => void) => void }).zstdCompress;

/** In the server's order of preference (negotiation picks by the client's q-values first). */
export const ENCODINGS: Encoding[] = zstdCompress ? ['zstd', 'br', 'gzip'] : ['br', 'gzip'];

/** Bodies shorter than this go as they are (a 1 KB body saves a few hundred bytes at best). */
export const COMPRESS_THRESHOLD = 1024;

/**
 * Levels chosen for 2 cores (docs/performance.md, "Compression"): brotli 4 compresses a 100 KB
 * page about as small as gzip 9 in a fraction of brotli 11's time; gzip 6 is zlib's own default.
 */
const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };
const GZIP_OPTIONS = { level: 6 };

const compressors: Record<Encoding, Compress> = {
  br: (body, options) => promisify(zlib.brotliCompress)(body, options as zlib.BrotliOptions),
  gzip: (body, options) => promisify(zlib.gzip)(body, options as zlib.ZlibOptions),
  zstd: (body, options) => promisify(zstdCompress!)(body, options),
};

/** The coding this request's Accept-Encoding prefers among ours: `*` and `x-gzip` read as gzip, as the plugin reads them. */
export function negotiatedCoding(request: FastifyRequest, enabled: boolean): Coding {
  const header = request.headers['accept-encoding'];
  if (!enabled || !header) return 'identity';
  const chosen = negotiate(header.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), ENCODINGS);
  return (chosen as Encoding | null) ?? 'identity';
}

/** `body` in `coding`, or as it is when it is too short to gain (the coding actually applied comes back). */
export async function encodeBody(body: string, coding: Coding): Promise<{ bytes: Buffer; coding: Coding }> {
  const bytes = Buffer.from(body);
  if (coding === 'identity' || bytes.length < COMPRESS_THRESHOLD) return { bytes, coding: 'identity' };
  const options = coding === 'br' ? { params: { ...BROTLI_OPTIONS.params, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } } : coding === 'gzip' ? GZIP_OPTIONS : {};
  // zlib's async calls run on libuv's threads, beside the event loop
  return { bytes: await compressors[coding](bytes, options), coding };
}

/** The headers of an answer whose coding was negotiated: every such answer varies by Accept-Encoding. */
export function codingHeaders(reply: FastifyReply, coding: Coding, enabled: boolean): void {
  if (!enabled) return;
  reply.header('vary', 'accept-encoding');
  if (coding !== 'identity') reply.header('content-encoding', coding);
}

/** JSON, text, scripts, styles, SVG; not octet-streams (the plugin's default includes them: stored files are such). */
const COMPRESSIBLE = /^text\/(?!event-stream)|(?:\+|\/)json(?:;|$)|(?:\+|\/)xml(?:;|$)|^application\/javascript|^image\/svg\+xml/u;

/** Every other answer: @fastify/compress, with the same encodings, threshold and levels; request bodies are not decompressed. */
export async function registerCompression(app: FastifyInstance, enabled: boolean): Promise<void> {
  if (!enabled) return;
  await app.register(fastifyCompress, {
    global: true,
    globalDecompression: false,
    encodings: ENCODINGS,
    threshold: COMPRESS_THRESHOLD,
    customTypes: COMPRESSIBLE,
    brotliOptions: BROTLI_OPTIONS,
    zlibOptions: GZIP_OPTIONS,
  });
}
