// The capacity the layout shows (app/layout/CapacityPanel) comes from react-query; features that change what is
// stored ask for it again through here, without reaching into the layout.
import type { QueryClient } from '@tanstack/react-query';

/** Re-reads the capacity after something changed what is stored (an upload finished, a delete, a copy). */
export function refreshCapacity(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({
    predicate: (q) => typeof q.queryKey[0] === 'string' && /^\/hcs\/controller\/(userCapacity|groupCapacity)\//.test(q.queryKey[0]),
  });
}
