// STORAGE_URL: where uploaded bytes are kept. Unset keeps them in DATA_DIR/files (one process,
// nothing to set up); `database` keeps them in PostgreSQL, and `s3://bucket/prefix?...` in an
// S3-compatible object store: the two every process of a deployment reaches.

export type StorageConfig =
  | { kind: 'local' }
  | { kind: 'database' }
  | {
      kind: 's3';
      bucket: string;
      /** Keys are stored under this folder of the bucket ('' for the bucket's root). */
      prefix: string;
      /** An S3-compatible server's address (MinIO, Ceph, R2...); undefined: AWS's own for the region. */
      endpoint: string | undefined;
      region: string;
      /** Addresses as endpoint/bucket/key rather than bucket.endpoint/key: what most self-hosted stores need. */
      forcePathStyle: boolean;
      /** Bound on connecting and on a silent socket, per attempt (STORAGE_TIMEOUT_MS). */
      timeoutMs: number;
    };

const S3_PARAMETERS = ['endpoint', 'region', 'force_path_style'];
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** The store STORAGE_URL names; each problem is added to `problems` (the config reports them all at once). */
export function storageFrom(env: Record<string, string | undefined>, timeoutMs: number, problems: string[]): StorageConfig {
  const raw = env.STORAGE_URL?.trim() ?? '';
  if (raw === '' || raw === 'local') return { kind: 'local' };
  if (raw === 'database') return { kind: 'database' };
  if (!raw.startsWith('s3://')) {
    problems.push(`STORAGE_URL must be unset (the local folder), "database" or s3://bucket?endpoint=...&region=..., got "${raw}"`);
    return { kind: 'local' };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`STORAGE_URL is not a valid URL: "${raw}"`);
    return { kind: 'local' };
  }
  const bucket = url.hostname;
  if (!BUCKET_NAME.test(bucket)) problems.push(`STORAGE_URL must name a bucket (3-63 lower-case letters, digits, dots or dashes) after s3://, got "${bucket}"`);
  for (const name of url.searchParams.keys()) {
    if (!S3_PARAMETERS.includes(name)) problems.push(`STORAGE_URL has an unknown parameter "${name}" (known: ${S3_PARAMETERS.join(', ')})`);
  }
  const endpoint = url.searchParams.get('endpoint')?.trim() || undefined;
  if (endpoint && !/^https?:\/\/[^/]/.test(endpoint)) problems.push(`STORAGE_URL's endpoint must be an http(s) URL, got "${endpoint}"`);
  const pathStyle = url.searchParams.get('force_path_style')?.trim().toLowerCase() ?? 'false';
  if (!['true', 'false', '1', '0'].includes(pathStyle)) problems.push(`STORAGE_URL's force_path_style must be true or false, got "${pathStyle}"`);
  return {
    kind: 's3',
    bucket,
    prefix: decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, ''),
    endpoint: endpoint?.replace(/\/+$/, ''),
    region: url.searchParams.get('region')?.trim() || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    forcePathStyle: pathStyle === 'true' || pathStyle === '1',
    timeoutMs,
  };
}
