// Capacity in the left column (spec 2): used/total with a progress bar, or the infinite-space label when the quota
// is unlimited (isLimist "0"). Personal/Department toggle; the department view exists only for NetDisk.
import { Segmented, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { useGetGroupCapInfo, useGetUserCapInfo } from '../../api/gen/capacity/capacity.ts';
import { NETDISK } from '../../shared/libraries.ts';
import { updateStore, useStore, useUserInfo, type CapacityScope } from '../../shared/session.ts';
import { formatSize } from '../../shared/format.ts';
import { Text } from '../../shared/Text.tsx';

/**
 * antd's small line Progress without its label, drawn in the same tokens: Progress (circle and steps included) is
 * otherwise on the first load for this one bar (issue #22 weight).
 */
function UsageBar({ percent }: { percent: number }) {
  const { token } = theme.useToken();
  return (
    <div role="progressbar" aria-valuenow={percent} aria-valuemin={0} aria-valuemax={100} data-testid="capacity-bar" style={{ height: 6, margin: '4px 0', borderRadius: 3, overflow: 'hidden', background: token.colorFillSecondary }}>
      <div style={{ width: `${percent}%`, height: '100%', borderRadius: 3, background: percent >= 90 ? token.colorError : token.colorInfo }} />
    </div>
  );
}

export function CapacityPanel({ libCode }: { libCode: string }) {
  const { t } = useTranslation();
  const user = useUserInfo();
  const { capacityScope } = useStore();
  const deptAllowed = libCode === NETDISK && !!user?.userDeptId;
  const scope: CapacityScope = deptAllowed ? capacityScope : 'personal';
  const personal = useGetUserCapInfo(user?.userId ?? '', libCode, { query: { enabled: !!user && scope === 'personal' } });
  const dept = useGetGroupCapInfo(user?.userDeptId ?? '', libCode, { query: { enabled: !!user && scope === 'department' } });
  const q = scope === 'personal' ? personal : dept;
  const cap = q.data?.data;

  let body;
  if (q.isLoading) body = <Text type="secondary">{t('common.loading')}</Text>;
  else if (!cap) body = <Text type="secondary">{t('layout.capacity.unavailable')}</Text>;
  else if (cap.isLimist === '0')
    body = (
      <>
        <Text>{t('layout.capacity.used', { used: cap.usedSize || formatSize(cap.usedBytes) })}</Text>
        <div data-testid="capacity-infinite">
          <Text type="secondary">{t('layout.capacity.infinite')}</Text>
        </div>
      </>
    );
  else {
    const total = cap.totalBytes ?? 0;
    const percent = total > 0 ? Math.min(100, Math.round((cap.usedBytes / total) * 1000) / 10) : 100;
    body = (
      <>
        <Text data-testid="capacity-text">
          {`${cap.usedSize || formatSize(cap.usedBytes)} / ${cap.totalSize || formatSize(cap.totalBytes)}`}
        </Text>
        <UsageBar percent={percent} />
      </>
    );
  }
  return (
    <div className="hcs-capacity" style={{ padding: 12, borderTop: '1px solid rgba(0,0,0,0.06)' }} data-testid="capacity-panel">
      <Text strong>{t('layout.capacity.title')}</Text>
      {deptAllowed && (
        <Segmented
          size="small"
          block
          style={{ margin: '6px 0' }}
          value={scope}
          onChange={(v) => updateStore({ capacityScope: v as CapacityScope })}
          options={[
            { value: 'personal', label: t('layout.capacity.personal') },
            { value: 'department', label: t('layout.capacity.department') },
          ]}
        />
      )}
      <div>{body}</div>
      {scope === 'department' && (
        // The spec's NetDisk menu has no department entry: the department view of the capacity leads to its files.
        <Link to="/departFile" data-testid="capacity-dept-files">
          {t('layout.capacity.openDeptFiles')}
        </Link>
      )}
    </div>
  );
}
