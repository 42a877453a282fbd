// Which files the browser can show itself (spec 9: playable video mp4, ogg, webm).
export type PreviewKind = 'image' | 'video' | 'pdf' | 'text' | 'none';

const IMAGE = new Set(['png', 'jpg', 'jpeg', 'gif', 'bmp', 'webp', 'svg', 'ico', 'avif']);
const VIDEO = new Set(['mp4', 'ogg', 'webm']);
const TEXT = new Set(['txt', 'log', 'md', 'csv', 'json', 'xml', 'yaml', 'yml', 'ini', 'conf', 'properties', 'sql', 'sh', 'ts', 'js', 'css', 'html', 'java', 'py', 'go', 'c', 'h', 'cpp']);

export function previewKind(fType: string | undefined | null): PreviewKind {
  const ext = (fType ?? '').toLowerCase();
  if (IMAGE.has(ext)) return 'image';
  if (VIDEO.has(ext)) return 'video';
  if (ext === 'pdf') return 'pdf';
  if (TEXT.has(ext)) return 'text';
  return 'none';
}

// What the server makes thumbnails of (mock-server/src/files/thumbnails.ts): raster images sharp decodes, no SVG.
const THUMBNAIL = new Set(['png', 'jpg', 'jpeg', 'jpe', 'gif', 'webp', 'avif', 'tif', 'tiff']);

export function hasThumbnail(fType: string | undefined | null): boolean {
  return THUMBNAIL.has((fType ?? '').toLowerCase());
}

/** Text previews read at most this much, so a multi-GB log never lands in the page. */
export const TEXT_PREVIEW_BYTES = 1024 * 1024;
