/**
 * A server-provided name as a single safe path segment: no separators, no '..', no control characters, so a
 * hostile file name cannot write outside the target directory.
 */
export function safeFileName(name: string): string {
   
  const cleaned = name.replace(/[\\/\u0000-\u001f\u007f]/g, '_').trim();
  if (!cleaned || cleaned === '.' || cleaned === '..') return 'download';
  return cleaned.slice(0, 255);
}

