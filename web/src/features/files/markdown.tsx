// Markdown preview (issue #22): the common block and inline forms turned into React elements. Nothing is ever set as
// HTML, so markup in a file (a <script>, an <img onerror>) shows as the text it is; links keep only web and mail
// addresses (no javascript: URLs).
import type { ReactNode } from 'react';

const SAFE_URL = /^(https?:|mailto:)/i;
// `code`, **bold**, *italic* or _italic_, [text](url), in the order they are tried at each position.
const INLINE = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*|_([^_]+)_|\[([^\]]+)\]\(([^)\s]+)\)/g;

function inline(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const k = out.length;
    if (m[1] !== undefined) out.push(<code key={k}>{m[1]}</code>);
    else if (m[2] !== undefined) out.push(<strong key={k}>{inline(m[2])}</strong>);
    else if (m[3] !== undefined || m[4] !== undefined) out.push(<em key={k}>{inline(m[3] ?? m[4]!)}</em>);
    else if (SAFE_URL.test(m[6]!))
      out.push(
        <a key={k} href={m[6]} target="_blank" rel="noopener noreferrer">
          {inline(m[5]!)}
        </a>,
      );
    else out.push(m[0]);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

export function Markdown({ source }: { source: string }) {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: ReactNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const k = blocks.length;
    let m: RegExpMatchArray | null;
    if (/^```/.test(line)) {
      const code: string[] = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]!); i++) code.push(lines[i]!);
      i++;
      blocks.push(
        <pre key={k} style={{ background: '#f6f8fa', padding: 8, overflow: 'auto' }}>
          <code>{code.join('\n')}</code>
        </pre>,
      );
    } else if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {
      const Tag = `h${m[1]!.length}` as 'h1';
      blocks.push(<Tag key={k}>{inline(m[2]!)}</Tag>);
      i++;
    } else if (/^(\*\s*\*\s*\*|-\s*-\s*-)[\s*-]*$/.test(line)) {
      blocks.push(<hr key={k} />);
      i++;
    } else if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const items: ReactNode[] = [];
      for (; i < lines.length && (m = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(lines[i]!)); i++) items.push(<li key={items.length}>{inline(m[1]!)}</li>);
      blocks.push(ordered ? <ol key={k}>{items}</ol> : <ul key={k}>{items}</ul>);
    } else if (/^>\s?/.test(line)) {
      const quote: string[] = [];
      for (; i < lines.length && /^>\s?/.test(lines[i]!); i++) quote.push(lines[i]!.replace(/^>\s?/, ''));
      blocks.push(
        <blockquote key={k} style={{ borderLeft: '4px solid #ddd', margin: 0, paddingLeft: 12, color: '#555' }}>
          {inline(quote.join(' '))}
        </blockquote>,
      );
    } else if (line.trim() === '') i++;
    else {
      // The first line is the paragraph's whatever it looks like, so every pass consumes at least one line.
      const para: string[] = [line];
      for (i++; i < lines.length && lines[i]!.trim() !== '' && !/^(```|#{1,6}\s|>|\s*([-*+]|\d+[.)])\s)/.test(lines[i]!); i++) para.push(lines[i]!);
      blocks.push(<p key={k}>{inline(para.join(' '))}</p>);
    }
  }
  return <div data-testid="preview-markdown">{blocks}</div>;
}
