// Markdown preview (issue #22), rendered by markdown-it with raw HTML off: markup in a file (a <script>, an
// <img onerror>) is escaped and shows as the text it is, and markdown-it's link check refuses javascript:, vbscript:,
// file: and data: URLs, so what is set as HTML below holds only the tags markdown-it writes itself. Images are off:
// a file would otherwise make every reader's browser fetch addresses it names. Links open in a new tab without the
// drive as opener.
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false }).disable('image');
const openLink = md.renderer.rules.link_open;
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('target', '_blank');
  tokens[idx]!.attrSet('rel', 'noopener noreferrer');
  return openLink ? openLink(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
};

export function Markdown({ source }: { source: string }) {
  return <div data-testid="preview-markdown" className="hcs-markdown" dangerouslySetInnerHTML={{ __html: md.render(source) }} />;
}
