// /dlpApproval (issue #17 part 4): approval requests for shares the DLP rules blocked. Department managers (and
// administrators) decide the requests of their subtree on the first tab; everyone follows their own on the second.
// Who may decide is the server's call (a manager sees only their subtree's requests, nobody decides their own).
import { useState } from 'react';
import { Button, Input, Modal, Space, Table, Tabs, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { decideDlpCheck, getPageDlpChecksQueryKey, pageDlpChecks } from '../../api/gen/dlp/dlp.ts';
import type { DlpCheck } from '../../api/gen/model/dlpCheck.ts';
import type { DlpCheckStatus } from '../../api/gen/model/dlpCheckStatus.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate } from '../../shared/format.ts';
import { toastError, toastSuccess } from '../../shared/notify.ts';
import { useUserInfo } from '../../shared/session.ts';

const STATUS_COLOUR: Record<DlpCheckStatus, string> = { pending: 'gold', approved: 'green', rejected: 'red' };

export function CheckStatusTag({ status }: { status: DlpCheckStatus }) {
  const { t } = useTranslation();
  return <Tag color={STATUS_COLOUR[status]} data-testid="dlp-check-status">{t(`dlp.status.${status}`)}</Tag>;
}

function ChecksTable({ box }: { box: 'todo' | 'mine' }) {
  const { t } = useTranslation();
  const [pageNo, setPageNo] = useState(1);
  const params = { box, pageNo, pageSize: 20 } as const;
  const checks = useQuery({ queryKey: getPageDlpChecksQueryKey(params), queryFn: async ({ signal }) => (await pageDlpChecks(params, { signal, quiet: true })).data });
  const [deciding, setDeciding] = useState<{ check: DlpCheck; approve: boolean; comment: string } | undefined>();

  const decide = async () => {
    if (!deciding) return;
    try {
      await decideDlpCheck({ checkId: deciding.check.checkId, approve: deciding.approve, ...(deciding.comment.trim() ? { comment: deciding.comment.trim() } : {}) }, { quiet: true });
      toastSuccess(t(deciding.approve ? 'dlp.approval.approved' : 'dlp.approval.rejected'));
      setDeciding(undefined);
      void checks.refetch();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };

  return (
    <>
      <Table<DlpCheck>
        rowKey="checkId"
        size="middle"
        loading={checks.isLoading}
        dataSource={checks.data?.list ?? []}
        pagination={{ current: pageNo, pageSize: 20, total: checks.data?.total ?? 0, onChange: setPageNo }}
        expandable={{
          expandedRowRender: (c) => (
            <ul style={{ margin: 0 }}>
              {c.hits.map((h) => (
                <li key={`${h.instanceId}-${h.ruleId}`}>{t('dlp.hitLine', { name: h.instanceName, rule: t(`dlp.kind.${h.kind}`), value: h.value })}</li>
              ))}
            </ul>
          ),
        }}
        columns={[
          { title: t('dlp.approval.items'), key: 'items', render: (_: unknown, c) => <span data-testid={`dlp-check-${c.checkId}`}>{c.items.join(', ')}</span> },
          ...(box === 'todo' ? [{ title: t('dlp.approval.requester'), dataIndex: 'requesterName', width: 140 }] : []),
          { title: t('dlp.approval.dept'), dataIndex: 'deptName', width: 140 },
          { title: t('dlp.approval.reason'), dataIndex: 'reason' },
          { title: t('dlp.approval.status'), dataIndex: 'status', width: 100, render: (s: DlpCheckStatus) => <CheckStatusTag status={s} /> },
          { title: t('dlp.approval.comment'), key: 'comment', render: (_: unknown, c) => (c.deciderName ? `${c.deciderName}: ${c.comment}` : '') },
          { title: t('files.createTime'), dataIndex: 'createTime', width: 170, render: (v: number) => formatDate(v) },
          ...(box === 'todo'
            ? [{
                title: t('files.actions'),
                key: 'actions',
                width: 160,
                render: (_: unknown, c: DlpCheck) => c.status === 'pending' && (
                  <Space size={0}>
                    <Button type="link" size="small" onClick={() => setDeciding({ check: c, approve: true, comment: '' })} data-testid={`dlp-approve-${c.checkId}`}>
                      {t('dlp.approval.approve')}
                    </Button>
                    <Button type="link" size="small" danger onClick={() => setDeciding({ check: c, approve: false, comment: '' })} data-testid={`dlp-reject-${c.checkId}`}>
                      {t('dlp.approval.reject')}
                    </Button>
                  </Space>
                ),
              }]
            : []),
        ]}
      />
      <Modal
        open={deciding !== undefined}
        title={t(deciding?.approve ? 'dlp.approval.approve' : 'dlp.approval.reject')}
        okText={t('files.ok')}
        cancelText={t('files.cancel')}
        okButtonProps={{ danger: deciding?.approve === false }}
        onCancel={() => setDeciding(undefined)}
        onOk={() => void decide()}
        destroyOnHidden
      >
        <Typography.Paragraph>{deciding?.check.items.join(', ')}</Typography.Paragraph>
        <Input.TextArea maxLength={500} rows={3} placeholder={t('dlp.approval.comment')} value={deciding?.comment} onChange={(e) => setDeciding((d) => d && { ...d, comment: e.target.value })} />
      </Modal>
    </>
  );
}

export default function DlpApprovalsPage() {
  const { t } = useTranslation();
  const user = useUserInfo();
  const decides = user?.isAdmin === true || (user?.managedDeptIds?.length ?? 0) > 0;
  return (
    <div data-testid="dlp-approvals-page">
      <Typography.Title level={4}>{t('routes.dlpApproval')}</Typography.Title>
      <Tabs
        destroyOnHidden
        items={[
          ...(decides ? [{ key: 'todo', label: t('dlp.approval.todo'), children: <ChecksTable box="todo" /> }] : []),
          { key: 'mine', label: t('dlp.approval.mine'), children: <ChecksTable box="mine" /> },
        ]}
      />
    </div>
  );
}
