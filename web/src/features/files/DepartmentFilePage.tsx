// /departFile and /departmentFile: the generic list screen on a department space (instanceType 3). A caller who
// reaches several departments (sysGroup/getNPDept) picks one in the switcher; the choice lives in the URL (?dept=)
// next to the folder, so reloads and links keep it. Uploads and downloads go through the shared transfer panel.
import { useCallback, useEffect, useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { Result, Select, Space, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { listReachableDepts } from '../../api/gen/org/org.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { useUserInfo } from '../../shared/session.ts';
import { getTransferStore } from '../../shared/transfers/runtime.ts';
import { FileBrowser } from './FileBrowser.tsx';
import { DEPT_PARAM, FOLDER_PARAM } from './list-state.ts';

export default function DepartmentFilePage() {
  const { t } = useTranslation();
  const user = useUserInfo();
  const owner = user?.userId ?? 'anonymous';
  const store = useMemo(() => getTransferStore(owner), [owner]);
  const [search, setSearch] = useSearchParams();
  const depts = useQuery({ queryKey: ['org', 'reachable', owner], queryFn: async ({ signal }) => (await listReachableDepts({ signal, quiet: true })).data ?? [] });
  const list = depts.data ?? [];
  const asked = search.get(DEPT_PARAM);
  // The caller's own department first, else the first one they reach.
  const fallback = list.find((d) => d.id === user?.userDeptId) ?? list[0];
  // A department named in the URL that the caller cannot reach is refused, not silently swapped for another.
  const refused = asked !== null && depts.isSuccess && !list.some((d) => d.id === asked);
  const chosen = list.find((d) => d.id === asked) ?? fallback;

  const choose = useCallback(
    (id: string, replace = false) =>
      setSearch(
        (prev) => {
          const next = new URLSearchParams(prev);
          next.set(DEPT_PARAM, id);
          // A folder of one department means nothing in another.
          if (next.get(DEPT_PARAM) !== prev.get(DEPT_PARAM)) next.delete(FOLDER_PARAM);
          return next;
        },
        { replace },
      ),
    [setSearch],
  );
  // No department in the URL: the default one, without an extra history entry.
  useEffect(() => {
    if (chosen && asked === null) choose(chosen.id, true);
  }, [chosen, asked, choose]);

  if (depts.isLoading) return <Spin />;
  if (depts.isError) return <Typography.Text type="danger">{errorMessage(depts.error)}</Typography.Text>;
  if (!chosen) return <Result status="info" title={t('org.deptFiles.none')} data-testid="dept-files-none" />;

  const label = (d: (typeof list)[number]) => d.pathNames.slice(1).join(' / ') || t('org.dept.company');
  return (
    <div data-testid="dept-files">
      <Space style={{ marginBottom: 12 }}>
        <Typography.Text strong>{t('org.deptFiles.dept')}</Typography.Text>
        {list.length > 1 || refused ? (
          <Select
            value={refused ? undefined : chosen.id}
            onChange={(id: string) => choose(id)}
            style={{ minWidth: 240 }}
            showSearch
            optionFilterProp="label"
            options={list.map((d) => ({ value: d.id, label: label(d) }))}
            data-testid="dept-switcher"
            aria-label={t('org.deptFiles.dept')}
          />
        ) : (
          <span data-testid="dept-switcher-single">{label(chosen)}</span>
        )}
      </Space>
      {refused && <Result status="403" title={t('org.deptFiles.refused')} data-testid="dept-files-refused" />}
      {/* Keyed by department so selection and paging start afresh; the list reads ?dept= itself. */}
      {asked === chosen.id && <FileBrowser key={chosen.id} libCode="NetDisk" instanceType="3" store={store} rootName={label(chosen)} />}
    </div>
  );
}
