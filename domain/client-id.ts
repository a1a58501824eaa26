// Client ids: `<device uuid>:<record uuid>`. The device half is stored as a device row of the
// user, the record half on the record itself; the full id is rebuilt for responses.

export interface ClientId {
  deviceToken: string;
  recordUuid: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Splits a client id; undefined when it is not two UUIDs joined by one colon. */
export function parseClientId(value: string): ClientId | undefined {
  const parts = value.split(':');
  if (parts.length !== 2 || !UUID.test(parts[0]) || !UUID.test(parts[1])) return undefined;
  return { deviceToken: parts[0].toLowerCase(), recordUuid: parts[1].toLowerCase() };
}

export function formatClientId(deviceToken: string | null, recordUuid: string | null): string | null {
  return deviceToken && recordUuid ? `${deviceToken}:${recordUuid}` : null;
}
