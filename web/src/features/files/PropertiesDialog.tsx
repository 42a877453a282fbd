import { Descriptions, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Instance } from '../../api/gen/model/instance.ts';
import { formatDate, formatSize } from '../../shared/format.ts';

/** `folderPath`: the folder on screen, where the item is (its location; linkpath would be the item's own path). */
export function PropertiesDialog({ item, folderPath, onClose }: { item: Instance | undefined; folderPath: string; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal open={item !== undefined} title={t('files.properties')} onCancel={onClose} footer={null} destroyOnHidden>
      {item && (
        <Descriptions column={1} size="small" bordered data-testid="properties">
          <Descriptions.Item label={t('files.name')}>{item.instanceName}</Descriptions.Item>
          <Descriptions.Item label={t('files.type')}>{item.classifierId === 'Folder' ? t('files.folder') : item.fType || t('files.category.9')}</Descriptions.Item>
          {item.classifierId === 'File' && <Descriptions.Item label={t('files.size')}>{`${formatSize(item.fSize)} (${item.fSize} B)`}</Descriptions.Item>}
          <Descriptions.Item label={t('files.location')}>
            <span data-testid="properties-location">{folderPath}</span>
          </Descriptions.Item>
          <Descriptions.Item label={t('files.owner')}>{item.userName}</Descriptions.Item>
          <Descriptions.Item label={t('files.createTime')}>{formatDate(item.createTime)}</Descriptions.Item>
          <Descriptions.Item label={t('files.updateTime')}>{formatDate(item.updateTime)}</Descriptions.Item>
          {item.version !== undefined && item.classifierId === 'File' && <Descriptions.Item label={t('files.version')}>{item.version}</Descriptions.Item>}
          {item.fMd5 && <Descriptions.Item label="SHA-256"><code style={{ wordBreak: 'break-all' }}>{item.fMd5}</code></Descriptions.Item>}
        </Descriptions>
      )}
    </Modal>
  );
}
