// The user's labels, shared by the label picker, the tag screen and the search filters.
import { useQuery } from '@tanstack/react-query';
import { getListLabelsQueryKey, listLabels } from '../../api/gen/files/files.ts';

export const DEFAULT_LABEL_COLOR = '#1677ff';

export function useLabels() {
  return useQuery({
    queryKey: getListLabelsQueryKey(),
    queryFn: async ({ signal }) => (await listLabels({ signal, quiet: true })).data ?? [],
  });
}
