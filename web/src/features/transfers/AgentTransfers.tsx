// Transfers running in the local agent (`drive agent`), shown in the transfer panel beside the browser's: name,
// direction, progress, speed, state, and pause / resume / delete, which the agent carries out. When the connection
// to the agent drops, its transfers stay listed as disconnected (the agent goes on without the tab) with a way to
// reconnect; once the agent is lost (agent-client.ts), its unfinished transfers may be continued in the browser.
import { lazy, Suspense } from 'react';
import { Button, Progress, Space, Table, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatSize } from '../../shared/format.ts';
import { toastWarning } from '../../shared/notify.ts';
import { lostJobs, type AgentJob } from '../../shared/transfers/agent-client.ts';
import { agentErrorKey, getAgent, useAgentSnapshot } from '../../shared/transfers/agent-runtime.ts';

const AgentLost = lazy(() => import('./AgentLost.tsx'));

export function AgentTransfers() {
  const { t } = useTranslation();
  const snap = useAgentSnapshot();
  // Reconnecting or lost: either way nothing can be asked of the agent now.
  const lost = snap.status === 'lost' || snap.status === 'reconnecting';
  if (snap.jobs.length === 0 && !lost) return null;
  const continuable = lostJobs(snap);
  const act = (type: 'pause' | 'resume' | 'delete', job: AgentJob) =>
    void getAgent()
      .control(type, job.id)
      .catch((err: unknown) => toastWarning(t(agentErrorKey(err))));

  const columns = [
    { title: t('transfer.col.filename'), dataIndex: 'name', key: 'name', ellipsis: { showTitle: true }, width: 220 },
    { title: t('transfer.agent.direction'), dataIndex: 'kind', key: 'kind', width: 80, render: (k: AgentJob['kind']) => t(`transfer.type.${k}`) },
    { title: t('transfer.col.fileSize'), dataIndex: 'bytes', key: 'bytes', width: 100, render: (v: number) => formatSize(v) },
    {
      title: t('transfer.col.status'),
      key: 'status',
      width: 240,
      render: (_: unknown, job: AgentJob) => {
        const percent = job.bytes > 0 ? Math.min(100, Math.floor((job.bytesDone / job.bytes) * 100)) : job.state === 'done' ? 100 : 0;
        const state = lost && job.state !== 'done' ? 'lost' : job.needsToken ? 'needsToken' : job.state;
        return (
          <div data-testid={`agent-${job.kind}-${job.name}`} data-state={state} data-percent={percent}>
            <Space size={6}>
              <Tag color={state === 'failed' || state === 'lost' ? 'error' : state === 'done' ? 'success' : 'processing'}>{t(`transfer.agent.state.${state}`)}</Tag>
              {job.state === 'running' && job.speed > 0 && !lost && <Typography.Text type="secondary">{formatSize(job.speed)}/s</Typography.Text>}
              {job.failed > 0 && (
                <Tooltip title={job.failures.map((f) => `${f.path}: ${f.code}`).join('\n')}>
                  <Typography.Text type="danger">{t('transfer.agent.failedFiles', { count: job.failed })}</Typography.Text>
                </Tooltip>
              )}
            </Space>
            <Progress percent={percent} size="small" showInfo={false} status={state === 'failed' ? 'exception' : undefined} />
          </div>
        );
      },
    },
    {
      title: t('transfer.col.actions'),
      key: 'actions',
      width: 220,
      render: (_: unknown, job: AgentJob) =>
        lost ? null : (
          <Space size={4}>
            {job.state === 'running' && (
              <Button size="small" onClick={() => act('pause', job)} data-testid={`agent-pause-${job.kind}-${job.name}`}>
                {t('transfer.agent.pause')}
              </Button>
            )}
            {(job.state === 'paused' || job.state === 'failed') && (
              <Button size="small" onClick={() => act('resume', job)} data-testid={`agent-resume-${job.kind}-${job.name}`}>
                {t('transfer.agent.resume')}
              </Button>
            )}
            <Button size="small" danger onClick={() => act('delete', job)} data-testid={`agent-delete-${job.kind}-${job.name}`}>
              {t('transfer.agent.delete')}
            </Button>
          </Space>
        ),
    },
  ];

  return (
    <div data-testid="agent-transfers" style={{ marginBottom: 16 }}>
      <Space style={{ marginBottom: 8 }}>
        <Typography.Text strong>{t('transfer.agent.title')}</Typography.Text>
        {lost && (
          <>
            {continuable.length === 0 && <Typography.Text type="danger">{t('transfer.agent.lost')}</Typography.Text>}
            <Button size="small" onClick={() => void getAgent().reattach()} data-testid="agent-reconnect">
              {t('transfer.agent.reconnect')}
            </Button>
          </>
        )}
      </Space>
      {continuable.length > 0 && (
        <Suspense fallback={null}>
          <AgentLost jobs={continuable} />
        </Suspense>
      )}
      <Table<AgentJob> rowKey="id" size="small" columns={columns} dataSource={snap.jobs as AgentJob[]} pagination={false} scroll={{ x: 'max-content' }} />
    </div>
  );
}
