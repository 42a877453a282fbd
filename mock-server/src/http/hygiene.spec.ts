import { describe, expect, it } from 'vitest';
import { clientTraceId, isActiveContent, redactUrl } from './hygiene.ts';

describe('isActiveContent', () => {
  it('knows script-capable files by extension, whatever the case', () => {
    for (const name of ['a.svg', 'A.SVG', 'x.html', 'x.htm', 'x.xhtml', 'feed.xml', 'style.xsl', 'app.js', 'm.mjs', 'page.mhtml', '.svg']) {
      expect(isActiveContent({ name }), name).toBe(true);
    }
    for (const name of ['photo.png', 'doc.pdf', 'notes.txt', 'video.mp4', 'svg', 'archive.svg.zip', 'data.json']) {
      expect(isActiveContent({ name }), name).toBe(false);
    }
  });

  it('knows them by Content-Type, parameters and case aside', () => {
    for (const contentType of ['text/html', 'Text/HTML; charset=utf-8', ' image/svg+xml', 'application/xhtml+xml', 'text/xml', 'application/rss+xml', 'text/javascript', 'application/x-javascript', 'multipart/x-mixed-replace; boundary=x']) {
      expect(isActiveContent({ contentType }), contentType).toBe(true);
    }
    for (const contentType of ['text/plain; charset=utf-8', 'image/png', 'application/pdf', 'application/octet-stream', 'application/json', '', 'xml']) {
      expect(isActiveContent({ contentType }), contentType).toBe(false);
    }
  });
});

describe('redactUrl', () => {
  it('redacts path segments of secret route parameters only when the route matches', () => {
    expect(redactUrl('/hcs/services/API/preview/abc123', '/hcs/services/API/preview/:ticket')).toBe('/hcs/services/API/preview/[redacted]');
    expect(redactUrl('/hcs/controller/Instances/abc123', '/hcs/controller/Instances/:id')).toBe('/hcs/controller/Instances/abc123');
    expect(redactUrl('/hcs/services/API/zip/abc?x=1', '/hcs/services/API/zip/:ticket')).toBe('/hcs/services/API/zip/[redacted]?x=1');
  });

  it('redacts the values of secret query parameters and keeps the rest as sent', () => {
    expect(redactUrl('/t?username=a&password=p%2B%3D&token=t')).toBe('/t?username=a&password=[redacted]&token=[redacted]');
    expect(redactUrl('/s3/b/k?X-Amz-Credential=AK%2F1&X-Amz-Signature=ff&partNumber=2&uploadId=u')).toBe(
      '/s3/b/k?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&partNumber=2&uploadId=u',
    );
    expect(redactUrl('/x?%70assword=p&uploads&%zz=1')).toBe('/x?%70assword=[redacted]&uploads&%zz=1');
  });
});

describe('clientTraceId', () => {
  it('takes 1-64 characters of [A-Za-z0-9_-] and nothing else', () => {
    expect(clientTraceId({ traceid: 'abc_DEF-123' })).toBe('abc_DEF-123');
    for (const bad of ['', 'a'.repeat(65), 'a b', 'a\tb', 'é', 'a\u009bb']) expect(clientTraceId({ traceid: bad }), JSON.stringify(bad)).toBeUndefined();
    expect(clientTraceId({ traceid: ['a', 'b'] })).toBeUndefined();
    expect(clientTraceId({})).toBeUndefined();
  });
});
