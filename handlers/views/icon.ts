// An icon as the API shows it: `path` is the image's download address for uploaded images,
// and the emoji or icon name otherwise (clients read either `path` or `content`).
import type { components } from '../../generated/api.js';
import type { IconColumns } from '../../db/icons.js';

export type IconView = components['schemas']['Icon'];

export function toIcon(row: IconColumns): IconView | null {
  if (row.icon_id === null || row.icon_type === null) return null;
  const path = row.icon_file_id !== null ? `/api/v1/files/${row.icon_file_id}` : (row.icon_content ?? '');
  return { id: row.icon_id, type: row.icon_type, content: row.icon_content ?? path, path };
}
