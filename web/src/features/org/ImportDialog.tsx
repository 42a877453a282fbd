// CSV import of accounts (Users/importUsers): the administrator picks a file, the server creates each row on its own
// and answers a report; every failed row shows its reason by error code, in the user's language.
import { useEffect, useState } from 'react';
import { Alert, Button, Modal, Space, Table, Tag, Typography } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { importUsers } from '../../api/gen/org/org.ts';
import type { ImportReport } from '../../api/gen/model/importReport.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { orgCodeMessage } from './org-shared.ts';

/** The server's limit (contract: importUsers body at most 1 MiB). */
export const IMPORT_MAX_BYTES = 1024 * 1024;

export function ImportDialog({ open, deptId, deptName, onClose, onImported }: { open: boolean; deptId: string; deptName: string; onClose: () => void; onImported: () => void }) {
  const { t } = useTranslation();
  const [report, setReport] = useState<ImportReport>();
  const [failed, setFailed] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (open) {
      setReport(undefined);
      setFailed(undefined);
    }
  }, [open]);

  const run = async (file: File) => {
    setFailed(undefined);
    setReport(undefined);
    if (file.size > IMPORT_MAX_BYTES) {
      setFailed(t('org.import.tooLarge'));
      return;
    }
    setBusy(true);
    try {
      const res = await importUsers(await file.text(), { deptId }, { quiet: true });
      setReport(res.data);
      onImported();
    } catch (err) {
      setFailed(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal open={open} title={t('org.import.title')} onCancel={onClose} footer={<Button onClick={onClose}>{t('org.close')}</Button>} width={720} destroyOnHidden>
      <Typography.Paragraph>{t('org.import.hint', { dept: deptName })}</Typography.Paragraph>
      <Typography.Paragraph>
        <code>userName,password,realName,dept,quota,expires,email,phone,labels</code>
      </Typography.Paragraph>
      <Space style={{ marginBottom: 12 }}>
        <Button icon={<UploadOutlined />} loading={busy} onClick={() => document.getElementById('org-import-file')?.click()}>
          {t('org.import.choose')}
        </Button>
        <input
          id="org-import-file"
          type="file"
          accept=".csv,text/csv"
          hidden
          data-testid="import-file-input"
          onChange={(e) => {
            const f = e.target.files?.[0];
            e.target.value = '';
            if (f) void run(f);
          }}
        />
      </Space>
      {failed && <Alert type="error" showIcon message={failed} data-testid="import-error" />}
      {report && (
        <>
          <Alert
            type={report.failed > 0 ? 'warning' : 'success'}
            showIcon
            message={t('org.import.summary', { created: report.created, failed: report.failed })}
            data-testid="import-summary"
            style={{ marginBottom: 12 }}
          />
          <Table
            size="small"
            rowKey="row"
            pagination={{ pageSize: 10 }}
            dataSource={report.rows}
            data-testid="import-report"
            columns={[
              { title: t('org.import.row'), dataIndex: 'row', width: 70 },
              { title: t('org.user.userName'), dataIndex: 'userName' },
              {
                title: t('org.import.result'),
                key: 'status',
                render: (_: unknown, r) =>
                  r.status === 'created' ? (
                    <Tag color="green">{t('org.import.created')}</Tag>
                  ) : (
                    <Space>
                      <Tag color="red">{t('org.import.failed')}</Tag>
                      <span data-testid={`import-reason-${r.row}`}>{r.code ? orgCodeMessage('user', r.code, { name: r.userName }) : t('errors.unexpected')}</span>
                    </Space>
                  ),
              },
            ]}
          />
        </>
      )}
    </Modal>
  );
}
