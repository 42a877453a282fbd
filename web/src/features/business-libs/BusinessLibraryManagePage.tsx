// /businessLibraryManage (issue #18): every custom library with what it holds (classifiers, attributes, files,
// folders, space used), enabled or not, and the way to its other screens. Libraries are made and edited on
// /businessManage; this is where an administrator sees them side by side.
import { Link } from 'react-router-dom';
import { Switch, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { updateBusinessLib } from '../../api/gen/business-libs/business-libs.ts';
import type { BusinessLibAdmin } from '../../api/gen/model/index.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatSize } from '../../shared/format.ts';
import { toastError } from '../../shared/notify.ts';
import { ScreenLinks, statsOf, useAllLibs, useLibName, useRefreshLibs, useStats } from './screens.tsx';

export default function BusinessLibraryManagePage() {
  const { t } = useTranslation();
  const libs = useAllLibs();
  const stats = useStats();
  const refresh = useRefreshLibs();
  const name = useLibName();
  const custom = (libs.data ?? []).filter((l) => l.custom === 1);
  const count = (l: BusinessLibAdmin, k: 'classifiers' | 'attributes' | 'files' | 'folders') => statsOf(stats.data, l.libCode)?.[k] ?? '';

  const toggle = async (l: BusinessLibAdmin, on: boolean) => {
    try {
      await updateBusinessLib(l.libId, { isEnabled: on ? 1 : 0 }, { quiet: true });
    } catch (err) {
      toastError(errorMessage(err));
    }
    await refresh();
  };

  return (
    <div data-testid="business-library-manage-page">
      <Typography.Title level={4}>{t('routes.businessLibraryManage')}</Typography.Title>
      <Typography.Paragraph>
        <Link to="/businessManage">{t('routes.businessManage')}</Link>
      </Typography.Paragraph>
      <Table<BusinessLibAdmin>
        rowKey="libId"
        size="middle"
        loading={libs.isLoading || stats.isLoading}
        dataSource={custom}
        pagination={false}
        columns={[
          { title: t('bizlibs.code'), dataIndex: 'libCode', width: 160 },
          { title: t('bizlibs.name'), key: 'name', render: (_: unknown, l) => <span data-testid={`manage-row-${l.libCode}`}>{name.lib(l)}</span> },
          {
            title: t('bizscreens.status'),
            dataIndex: 'isEnabled',
            width: 100,
            render: (v: number, l) => <Switch checked={v === 1} onChange={(on) => void toggle(l, on)} data-testid={`manage-enabled-${l.libCode}`} />,
          },
          { title: t('bizscreens.classifierCount'), key: 'c', width: 90, render: (_: unknown, l) => count(l, 'classifiers') },
          { title: t('bizscreens.attributeCount'), key: 'a', width: 90, render: (_: unknown, l) => count(l, 'attributes') },
          { title: t('bizscreens.files'), key: 'f', width: 90, render: (_: unknown, l) => <span data-testid={`manage-files-${l.libCode}`}>{count(l, 'files')}</span> },
          { title: t('bizscreens.folders'), key: 'd', width: 90, render: (_: unknown, l) => count(l, 'folders') },
          { title: t('bizscreens.bytes'), key: 'b', width: 110, render: (_: unknown, l) => { const s = statsOf(stats.data, l.libCode); return s ? formatSize(s.bytes) : ''; } },
          { title: t('bizlibs.actions'), key: 'links', render: (_: unknown, l) => <ScreenLinks libCode={l.libCode} /> },
        ]}
      />
    </div>
  );
}
