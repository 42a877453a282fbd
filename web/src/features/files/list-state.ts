// The list screen's query state: folder, page, size, sort and category filter, with keyset cursors remembered per
// page so paging forward through a 100,000-entry folder seeks instead of skipping (listInstances `cursor`).
// The folder lives in the URL (?folder=<id>): back and forward move between folders, a reload stays in the folder,
// and a folder can be bookmarked or sent as a link (the server still checks access).
import { useCallback, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { listInstances, getListInstancesQueryKey } from '../../api/gen/files/files.ts';
import type { ListInstancesParams } from '../../api/gen/model/listInstancesParams.ts';

export const PAGE_SIZES = [10, 20, 30, 40, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 20;

export type SortField = 'instanceName' | 'fSize' | 'createTime';
export type SortOrder = 'asc' | 'desc';
export type ViewMode = 'table' | 'icon';

export interface ListState {
  parentId: string | undefined;
  pageNo: number;
  pageSize: number;
  sortField: SortField;
  sortOrder: SortOrder;
  fileFilter: number | undefined;
}

const VIEW_KEY = 'hcs.files.view';

export function useViewMode(): [ViewMode, (v: ViewMode) => void] {
  const [mode, setMode] = useState<ViewMode>(() => (localStorage.getItem(VIEW_KEY) === 'icon' ? 'icon' : 'table'));
  const set = useCallback((v: ViewMode) => {
    localStorage.setItem(VIEW_KEY, v);
    setMode(v);
  }, []);
  return [mode, set];
}

export const FOLDER_PARAM = 'folder';
/** The department whose space a department-files screen shows (instanceType 3); it lives in the URL like the folder. */
export const DEPT_PARAM = 'dept';
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export function useFileList(base: { libCode: string; instanceType: string }) {
  const [search, setSearch] = useSearchParams();
  const raw = search.get(FOLDER_PARAM);
  const folder = raw && ID.test(raw) ? raw : undefined;
  const rawDept = search.get(DEPT_PARAM);
  // Only the department space's root needs it: below the root, folders are addressed by id like any other.
  const deptId = base.instanceType === '3' && rawDept && ID.test(rawDept) ? rawDept : undefined;
  const [local, setLocal] = useState<Omit<ListState, 'parentId'> & { pageOf: string | undefined }>({
    pageNo: 1,
    pageSize: DEFAULT_PAGE_SIZE,
    sortField: 'instanceName',
    sortOrder: 'asc',
    fileFilter: undefined,
    pageOf: undefined,
  });
  // The page belongs to the folder it was chosen in: another folder (also by back/forward) starts at page 1.
  const state: ListState = useMemo(
    () => ({
      parentId: folder,
      pageNo: local.pageOf === folder ? local.pageNo : 1,
      pageSize: local.pageSize,
      sortField: local.sortField,
      sortOrder: local.sortOrder,
      fileFilter: local.fileFilter,
    }),
    [folder, local],
  );
  // Cursor that starts page N of the current (folder, size, sort, filter) listing.
  const cursors = useRef(new Map<string, string>());
  const signature = `${deptId ?? ''}|${state.parentId ?? ''}|${state.pageSize}|${state.sortField}|${state.sortOrder}|${state.fileFilter ?? ''}`;
  const cursor = cursors.current.get(`${signature}#${state.pageNo}`);

  const params: ListInstancesParams = useMemo(
    () => ({
      libCode: base.libCode,
      instanceType: base.instanceType,
      ...(state.parentId ? { parentId: state.parentId } : deptId ? { deptId } : {}),
      pageNo: state.pageNo,
      pageSize: state.pageSize,
      sortField: state.sortField,
      sortOrder: state.sortOrder,
      ...(state.fileFilter ? { fileFilter: state.fileFilter } : {}),
      ...(cursor ? { cursor } : {}),
    }),
    [base.libCode, base.instanceType, state, cursor, deptId],
  );

  const query = useQuery({
    // The cursor is only a faster way to the same page, so it stays out of the cache key.
    queryKey: getListInstancesQueryKey({ ...params, cursor: undefined }),
    queryFn: async ({ signal }) => {
      const res = await listInstances(params, { signal, quiet: true });
      const next = res.data?.nextCursor;
      if (next) cursors.current.set(`${signature}#${state.pageNo + 1}`, next);
      return res.data;
    },
    placeholderData: keepPreviousData,
  });

  const update = useCallback(
    (patch: Partial<ListState>) => {
      const { parentId, ...rest } = patch;
      if ('parentId' in patch && parentId !== folder) {
        // A new history entry: back returns to the folder the user came from.
        setSearch(
          (prev) => {
            const next = new URLSearchParams(prev);
            if (parentId) next.set(FOLDER_PARAM, parentId);
            else next.delete(FOLDER_PARAM);
            return next;
          },
          { replace: false },
        );
      }
      setLocal((s) => {
        const next = { ...s, ...rest, pageOf: 'parentId' in patch ? parentId : folder };
        // Any change but the page itself starts again at page 1.
        if (!('pageNo' in patch)) next.pageNo = 1;
        return next;
      });
    },
    [folder, setSearch],
  );

  const queryClient = useQueryClient();
  const refresh = useCallback(() => {
    // Creates, deletes and moves shift every later page: old cursors would skip or repeat rows.
    cursors.current.clear();
    // A move, or an upload dropped on a folder row, changes folders not on screen: their cached pages are asked
    // again when next shown.
    void queryClient.invalidateQueries({ queryKey: getListInstancesQueryKey(), refetchType: 'none' });
    void query.refetch();
  }, [query, queryClient]);

  return { state, update, query, refresh };
}
