// The few XML shapes S3 speaks: a builder for responses and a strict little parser for the two
// request bodies the store accepts (CompleteMultipartUpload and Delete). No DTDs, no entities
// beyond the predefined ones, so nothing can expand or reach outside the document.
export const S3_NS = 'http://s3.amazonaws.com/doc/2006-03-01/';

export type XmlChild = XmlNode | string | number | boolean | null | undefined;
export interface XmlNode {
  name: string;
  children: XmlChild[];
  attrs?: Record<string, string>;
}

export function el(name: string, ...children: XmlChild[]): XmlNode {
  return { name, children };
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"'\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, (c) => {
    switch (c) {
      case '&': return '&amp;';
      case '<': return '&lt;';
      case '>': return '&gt;';
      case '"': return '&quot;';
      case "'": return '&apos;';
      // Control characters are legal in S3 keys but not as XML 1.0 text; S3 emits them as references too.
      default: return `&#x${c.charCodeAt(0).toString(16)};`;
    }
  });
}

function render(node: XmlChild): string {
  if (node === null || node === undefined) return '';
  if (typeof node !== 'object') return escapeXml(String(node));
  const attrs = Object.entries(node.attrs ?? {}).map(([k, v]) => ` ${k}="${escapeXml(v)}"`).join('');
  return `<${node.name}${attrs}>${node.children.map(render).join('')}</${node.name}>`;
}

/** A complete document; the root element gets the S3 namespace unless told otherwise. */
export function xmlDocument(root: XmlNode, namespace: string | null = S3_NS): string {
  const withNs = namespace ? { ...root, attrs: { xmlns: namespace, ...root.attrs } } : root;
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + render(withNs);
}

export interface ParsedElement {
  name: string;
  children: ParsedElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    const value = ENTITIES[ref];
    if (value === undefined) throw new Error(`unknown entity ${whole}`);
    return value;
  });
}

/** Parses a small XML document into elements (namespace prefixes dropped). Throws on malformed input. */
export function parseXml(source: string): ParsedElement {
  let pos = 0;
  const stack: ParsedElement[] = [];
  let root: ParsedElement | undefined;
  while (pos < source.length) {
    if (source.startsWith('<?', pos)) {
      const end = source.indexOf('?>', pos);
      if (end < 0) throw new Error('unterminated processing instruction');
      pos = end + 2;
    } else if (source.startsWith('<!--', pos)) {
      const end = source.indexOf('-->', pos);
      if (end < 0) throw new Error('unterminated comment');
      pos = end + 3;
    } else if (source.startsWith('<![CDATA[', pos)) {
      const end = source.indexOf(']]>', pos);
      const top = stack.at(-1);
      if (end < 0 || !top) throw new Error('misplaced CDATA');
      top.text += source.slice(pos + 9, end);
      pos = end + 3;
    } else if (source.startsWith('<!', pos)) {
      throw new Error('declarations are not allowed');
    } else if (source.startsWith('</', pos)) {
      const end = source.indexOf('>', pos);
      if (end < 0) throw new Error('unterminated end tag');
      const name = source.slice(pos + 2, end).trim().replace(/^.*:/, '');
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`mismatched </${name}>`);
      pos = end + 1;
      if (stack.length === 0) root = open;
    } else if (source[pos] === '<') {
      const end = source.indexOf('>', pos);
      if (end < 0) throw new Error('unterminated tag');
      const selfClosing = source[end - 1] === '/';
      const inner = source.slice(pos + 1, selfClosing ? end - 1 : end).trim();
      const name = (inner.split(/\s/, 1)[0] ?? '').replace(/^.*:/, '');
      if (!/^[A-Za-z_][\w.-]*$/.test(name)) throw new Error('bad element name');
      if (root) throw new Error('content outside the root element');
      const element: ParsedElement = { name, children: [], text: '' };
      stack.at(-1)?.children.push(element);
      pos = end + 1;
      if (selfClosing) {
        if (stack.length === 0) root = element;
      } else {
        stack.push(element);
      }
    } else {
      const next = source.indexOf('<', pos);
      const text = source.slice(pos, next < 0 ? source.length : next);
      const top = stack.at(-1);
      if (top) top.text += decodeEntities(text);
      else if (/\S/.test(text)) throw new Error('text outside the root element');
      pos = next < 0 ? source.length : next;
    }
  }
  if (!root || stack.length > 0) throw new Error('incomplete document');
  return root;
}

export function childText(parent: ParsedElement, name: string): string | undefined {
  return parent.children.find((c) => c.name === name)?.text;
}
