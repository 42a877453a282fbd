import { useEffect, useState } from 'react';
import { Button, Descriptions, Input, Modal, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { saveInstanceRemark } from '../../api/gen/files/files.ts';
import type { Instance } from '../../api/gen/model/instance.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate, formatSize } from '../../shared/format.ts';
import { ExplainAccessSection } from '../../shared/AccessExplanationView.tsx';
import { cannotEdit, LabelTags } from './FileTable.tsx';

export const REMARK_MAX = 500;

/** The remark of an item (issue #16 item 3): free text up to 500 characters, editable where the user may edit. */
function RemarkEditor({ item, onSaved }: { item: Instance; onSaved?: () => void }) {
  const { t } = useTranslation();
  const [text, setText] = useState(item.remark ?? '');
  const [saved, setSaved] = useState(item.remark ?? '');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setText(item.remark ?? '');
    setSaved(item.remark ?? '');
  }, [item]);
  if (cannotEdit(item)) return <span data-testid="properties-remark">{saved}</span>;
  const save = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await saveInstanceRemark({ instanceId: item.instanceId, remark: text }, { quiet: true });
      setSaved(text);
      onSaved?.();
    } catch (err) {
      setError(errorMessage(err, { name: item.instanceName }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      <Input.TextArea value={text} maxLength={REMARK_MAX} showCount autoSize={{ minRows: 2, maxRows: 6 }} onChange={(e) => setText(e.target.value)} data-testid="properties-remark-input" />
      <Button size="small" type="primary" disabled={text === saved} loading={busy} onClick={() => void save()} data-testid="properties-remark-save">
        {t('tags.saveRemark')}
      </Button>
      {error && <Typography.Text type="danger">{error}</Typography.Text>}
    </Space>
  );
}

/** `folderPath`: the folder on screen, where the item is (its location; linkpath would be the item's own path). */
export function PropertiesDialog({
  item,
  folderPath,
  onClose,
  onRemarkSaved,
  onVersions,
}: {
  item: Instance | undefined;
  folderPath: string;
  onClose: () => void;
  onRemarkSaved?: () => void;
  onVersions?: (i: Instance) => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal open={item !== undefined} title={t('files.properties')} onCancel={onClose} footer={null} destroyOnHidden>
      {item && (
        // Field names on one line: at the dialog's width the column was narrow enough to break 创建时间 in two.
        <Descriptions column={1} size="small" bordered styles={{ label: { whiteSpace: 'nowrap' } }} data-testid="properties">
          <Descriptions.Item label={t('files.name')}>{item.instanceName}</Descriptions.Item>
          <Descriptions.Item label={t('files.type')}>{item.classifierId === 'Folder' ? t('files.folder') : item.fType || t('files.category.9')}</Descriptions.Item>
          {item.classifierId === 'File' && <Descriptions.Item label={t('files.size')}>{`${formatSize(item.fSize)} (${item.fSize} B)`}</Descriptions.Item>}
          <Descriptions.Item label={t('files.location')}>
            <span data-testid="properties-location">{folderPath}</span>
          </Descriptions.Item>
          <Descriptions.Item label={t('files.owner')}>{item.userName}</Descriptions.Item>
          <Descriptions.Item label={t('files.createTime')}>{formatDate(item.createTime)}</Descriptions.Item>
          <Descriptions.Item label={t('files.updateTime')}>{formatDate(item.updateTime)}</Descriptions.Item>
          {item.version !== undefined && item.classifierId === 'File' && (
            <Descriptions.Item label={t('files.version')}>
              <Space>
                {item.version}
                {onVersions && (
                  <Button type="link" size="small" onClick={() => onVersions(item)} data-testid="properties-versions">
                    {t('versions.title')}
                  </Button>
                )}
              </Space>
            </Descriptions.Item>
          )}
          <Descriptions.Item label={t('tags.labels')}>
            <LabelTags item={item} />
          </Descriptions.Item>
          <Descriptions.Item label={t('tags.remark')}>
            <RemarkEditor item={item} onSaved={onRemarkSaved} />
          </Descriptions.Item>
          {item.fMd5 && <Descriptions.Item label="SHA-256"><code style={{ wordBreak: 'break-all' }}>{item.fMd5}</code></Descriptions.Item>}
        </Descriptions>
      )}
      {item && <ExplainAccessSection instanceId={item.instanceId} />}
    </Modal>
  );
}
