// The tag SyncBadge loads: state in words, lag and a failure's reason in the tooltip.
import { Tag, Tooltip } from 'antd';
import { CheckCircleOutlined, CloseCircleOutlined, SyncOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { ReplicationState } from '../../api/gen/model/replicationState.ts';
import { formatDuration, formatSize } from '../../shared/format.ts';
import { addStrings } from '../../shared/page-strings.ts';
import zhCN from './sync-badge.zh_CN.json';
import enUS from './sync-badge.en_US.json';

addStrings({ zh_CN: zhCN, en_US: enUS });

const LOOK = {
  synced: { color: 'success', icon: <CheckCircleOutlined /> },
  pending: { color: 'processing', icon: <SyncOutlined spin /> },
  failed: { color: 'error', icon: <CloseCircleOutlined /> },
} as const;

export default function SyncTag({ state }: { state: ReplicationState }) {
  const { t } = useTranslation();
  const units = { s: t('syncBadge.s'), min: t('syncBadge.min'), h: t('syncBadge.h'), d: t('syncBadge.d') };
  const lines = [
    state.state === 'synced'
      ? t('syncBadge.allCopied')
      : t('syncBadge.lag', { bytes: formatSize(state.lagBytes), time: formatDuration(state.lagSeconds, units) }),
    ...(state.reason ? [t('syncBadge.reason', { reason: state.reason })] : []),
    ...(state.partial ? [t('syncBadge.partial')] : []),
  ];
  const look = LOOK[state.state];
  return (
    <Tooltip title={lines.map((l) => <div key={l}>{l}</div>)}>
      <Tag color={look.color} icon={look.icon} data-testid="sync-badge" data-state={state.state} style={{ marginInlineEnd: 0 }}>
        {t(`syncBadge.${state.state}`)}
      </Tag>
    </Tooltip>
  );
}
