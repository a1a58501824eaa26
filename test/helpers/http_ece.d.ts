// http_ece (web-push's own dependency) ships no types: the part the push tests use to decrypt
// what a push service would hand the browser (RFC 8188 / RFC 8291).
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';
  export function decrypt(buffer: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string }): Buffer;
}
