// A row's replication state (issue #20), shown only where a sync config covers the row: most libraries replicate
// nothing, so the tag and its strings load on their first use rather than with the files screen (its budget).
import { lazy, Suspense } from 'react';
import type { Instance } from '../../api/gen/model/instance.ts';

const SyncTag = lazy(() => import('./SyncTag.tsx'));

export function SyncBadge({ item }: { item: Instance }) {
  if (!item.replication) return null;
  return (
    <Suspense fallback={null}>
      <SyncTag state={item.replication} />
    </Suspense>
  );
}
