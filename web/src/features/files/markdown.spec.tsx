// Markdown previews render the common forms and never run markup from the file (issue #22).
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import { Markdown } from './markdown.tsx';

describe('Markdown', () => {
  it('renders headings, lists, emphasis, code and web links', () => {
    const { container } = render(<Markdown source={'# Title\n\nSome **bold** and *it* with `x<y`.\n\n- one\n- two\n\n1. first\n\n> quoted\n\n```\nlet a = 1;\n```\n\n[site](https://example.com)'} />);
    expect(container.querySelector('h1')?.textContent).toBe('Title');
    expect(container.querySelector('strong')?.textContent).toBe('bold');
    expect(container.querySelector('em')?.textContent).toBe('it');
    expect(container.querySelector('p code')?.textContent).toBe('x<y');
    expect([...container.querySelectorAll('ul li')].map((l) => l.textContent)).toEqual(['one', 'two']);
    expect(container.querySelector('ol li')?.textContent).toBe('first');
    expect(container.querySelector('blockquote')?.textContent?.trim()).toBe('quoted');
    expect(container.querySelector('pre code')?.textContent?.trim()).toBe('let a = 1;');
    expect(container.querySelector('a')?.getAttribute('href')).toBe('https://example.com');
  });

  it('shows markup as text and drops script links', () => {
    const { container } = render(<Markdown source={'<script>window.hacked = 1</script>\n\n<img src=x onerror="window.hacked=1">\n\n[click](javascript:alert(1))'} />);
    expect(container.querySelector('script, img')).toBeNull();
    expect(container.querySelector('a')).toBeNull();
    expect(container.textContent).toContain('<script>window.hacked = 1</script>');
    expect(container.textContent).toContain('[click](javascript:alert(1))');
  });

  it('opens links in a new tab without the drive as opener, and shows no images', () => {
    const { container } = render(<Markdown source={'[site](https://example.com) ![pixel](https://tracker.example/p.png)'} />);
    expect(container.querySelector('a')?.getAttribute('target')).toBe('_blank');
    expect(container.querySelector('a')?.getAttribute('rel')).toBe('noopener noreferrer');
    expect(container.querySelector('img')).toBeNull();
  });
});
