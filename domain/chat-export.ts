// An assistant answer as a Markdown document (spec: exportChatMessage): `# title`, then the
// blocks: markdown as written, tables as Markdown tables (column keys humanised, arrays joined
// with ", ", booleans yes/no), KPIs as `- **Label:** value CUR` lines, charts as a caption and
// a table of their data, nested canvases recursively; other blocks are left out. Parts are
// separated by a blank line and the file ends with a newline.

type Block = Record<string, unknown>;
type Row = Record<string, unknown>;

const humanise = (key: string) =>
  key
    .split('_')
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(' ');

function cell(value: unknown): string {
  const text = Array.isArray(value) ? value.map(String).join(', ') : typeof value === 'boolean' ? (value ? 'yes' : 'no') : value === null || value === undefined ? '' : String(value);
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function table(rows: Row[], columns?: string[]): string | undefined {
  if (rows.length === 0) return undefined;
  const keys = columns && columns.length > 0 ? columns : Object.keys(rows[0]);
  return [
    `| ${keys.map(humanise).join(' | ')} |`,
    `| ${keys.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${keys.map((key) => cell(row[key])).join(' | ')} |`),
  ].join('\n');
}

const isRows = (value: unknown): value is Row[] => Array.isArray(value) && value.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row));

function renderBlock(block: Block): string[] {
  const title = typeof block.title === 'string' && block.title.trim() !== '' ? block.title.trim() : undefined;
  switch (block.type) {
    case 'markdown': {
      const text = String(block.text ?? '').trim();
      return text ? [text] : [];
    }
    case 'table': {
      const rendered = isRows(block.rows) ? table(block.rows, Array.isArray(block.columns) ? block.columns.map(String) : undefined) : undefined;
      return rendered ? [title ? `## ${title}\n\n${rendered}` : rendered] : [];
    }
    case 'kpi': {
      const items = Array.isArray(block.items) ? (block.items as Row[]) : [];
      const lines = items.map((item) => {
        const suffix = item.currency ? ` ${item.currency}` : item.unit ? String(item.unit) : '';
        return `- **${item.label}:** ${item.value}${suffix}`;
      });
      if (lines.length === 0) return [];
      return [title ? `## ${title}\n\n${lines.join('\n')}` : lines.join('\n')];
    }
    case 'chart': {
      const caption = `_Chart: ${title ?? humanise(String(block.dataset_ref ?? 'chart'))}_`;
      const rendered = isRows(block.data) ? table(block.data) : undefined;
      return [rendered ? `${caption}\n\n${rendered}` : caption];
    }
    case 'canvas':
      return Array.isArray(block.blocks) ? (block.blocks as Block[]).flatMap(renderBlock) : [];
    default:
      return [];
  }
}

export interface ExportSource {
  content: string | null;
  blocks: Block[];
  chatTitle: string | null;
}

/** The document and its title; undefined when there is nothing to export. */
export function renderMarkdownDocument(source: ExportSource): { title: string; markdown: string } | undefined {
  const canvas = source.blocks.find((block) => block.type === 'canvas');
  let title: string;
  let parts: string[];
  if (canvas) {
    title = String(canvas.title ?? '').trim() || source.chatTitle?.trim() || 'Document';
    parts = renderBlock(canvas);
  } else {
    title = source.chatTitle?.trim() || 'Document';
    const content = source.content?.trim() ?? '';
    // The reply's narration is usually its first markdown block too: keep it once.
    const blocks = source.blocks.filter((block) => !(block.type === 'markdown' && String(block.text ?? '').trim() === content));
    parts = [...(content ? [content] : []), ...blocks.flatMap(renderBlock)];
  }
  if (parts.length === 0) return undefined;
  return { title, markdown: `${[`# ${title}`, ...parts].join('\n\n')}\n` };
}
