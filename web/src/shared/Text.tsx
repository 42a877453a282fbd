// Plain text and text links in antd's colours, for the screens drawn on first paint (issue #22 weight): antd's
// Typography brings its copy, edit and measured-ellipsis machinery (a TextArea among it), none of which these
// labels use. Colours come from the theme's tokens, so they follow ConfigProvider like antd's own.
import type { AnchorHTMLAttributes, CSSProperties, HTMLAttributes } from 'react';
import { theme } from 'antd';

export interface TextProps extends HTMLAttributes<HTMLSpanElement> {
  type?: 'secondary' | 'danger';
  strong?: boolean;
}

export function Text({ type, strong, style, ...rest }: TextProps) {
  const { token } = theme.useToken();
  const color = type === 'secondary' ? token.colorTextSecondary : type === 'danger' ? token.colorError : undefined;
  return <span {...rest} style={{ color, fontWeight: strong ? token.fontWeightStrong : undefined, ...style }} />;
}

/** A link that acts (onClick) rather than navigates; the hover colour comes from the .hcs-link rule in index.html. */
export function TextLink({ className, style, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement>) {
  const { token } = theme.useToken();
  const colours = { '--hcs-link': token.colorLink, '--hcs-link-hover': token.colorLinkHover } as CSSProperties;
  return <a {...rest} className={className ? `hcs-link ${className}` : 'hcs-link'} style={{ ...colours, ...style }} />;
}
