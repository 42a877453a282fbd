// A file's picture in the list and the icon view: the server's thumbnail for images, else the file type's icon
// (also when the thumbnail fails: THUMBNAIL_UNAVAILABLE, a file too large, a network error).
import { useState, type ReactNode } from 'react';
import type { Instance } from '../../api/gen/model/instance.ts';
import { getGetThumbnailUrl } from '../../api/gen/download/download.ts';
import { hasThumbnail } from './preview.ts';

export function FileThumb({ row, size, box, fallback }: { row: Instance; size: 64 | 256; box: number; fallback: ReactNode }) {
  const [failedFor, setFailedFor] = useState<string | null>(null);
  if (row.classifierId !== 'File' || !hasThumbnail(row.fType) || failedFor === row.instanceId) return <>{fallback}</>;
  return (
    <img
      src={getGetThumbnailUrl({ instanceId: row.instanceId, size })}
      alt=""
      loading="lazy"
      data-testid={`thumb-${row.instanceName}`}
      width={box}
      height={box}
      style={{ objectFit: size === 64 ? 'cover' : 'contain', verticalAlign: 'middle', borderRadius: 2 }}
      onError={() => setFailedFor(row.instanceId)}
    />
  );
}
