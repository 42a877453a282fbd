// Labels (issue #16 item 3): attach several of the user's labels to an item, or make a new one on the way.
import { useEffect, useState } from 'react';
import { Button, Checkbox, ColorPicker, Empty, Input, Modal, Space, Spin, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { createLabel, getListLabelsQueryKey, saveInstanceLabel } from '../../api/gen/files/files.ts';
import type { Instance } from '../../api/gen/model/instance.ts';
import { errorMessage } from '../../shared/error-message.ts';

import { DEFAULT_LABEL_COLOR, useLabels } from './labels.ts';

export default function LabelDialog({ item, onClose, onSaved }: { item: Instance | undefined; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const labels = useLabels();
  const [chosen, setChosen] = useState<string[]>([]);
  const [newName, setNewName] = useState('');
  const [newColor, setNewColor] = useState(DEFAULT_LABEL_COLOR);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setChosen((item?.labels ?? []).map((l) => l.labelId));
    setError(undefined);
    setNewName('');
  }, [item]);

  const create = async () => {
    const name = newName.trim();
    if (!name) return;
    setError(undefined);
    try {
      const res = await createLabel({ name, color: newColor }, { quiet: true });
      const id = res.data?.labelId;
      if (id) setChosen((c) => [...c, id]);
      setNewName('');
      await queryClient.invalidateQueries({ queryKey: getListLabelsQueryKey() });
    } catch (err) {
      setError(errorMessage(err, { name }));
    }
  };

  const save = async () => {
    if (!item) return;
    setBusy(true);
    setError(undefined);
    try {
      await saveInstanceLabel({ instanceId: item.instanceId, labelIds: chosen, mode: 'set' }, { quiet: true });
      await queryClient.invalidateQueries({ queryKey: getListLabelsQueryKey() });
      onSaved();
      onClose();
    } catch (err) {
      setError(errorMessage(err, { name: item.instanceName }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={item !== undefined}
      title={t('tags.labelTitle', { name: item?.instanceName ?? '' })}
      onCancel={onClose}
      onOk={save}
      okText={t('files.ok')}
      cancelText={t('files.cancel')}
      confirmLoading={busy}
      okButtonProps={{ 'data-testid': 'label-save' } as never}
      destroyOnHidden
    >
      {labels.isLoading ? (
        <Spin />
      ) : (labels.data ?? []).length === 0 ? (
        <Empty description={t('tags.none')} image={Empty.PRESENTED_IMAGE_SIMPLE} />
      ) : (
        <Checkbox.Group value={chosen} onChange={(v) => setChosen(v as string[])} style={{ display: 'flex', flexDirection: 'column', gap: 6 }} data-testid="label-choices">
          {(labels.data ?? []).map((l) => (
            <Checkbox key={l.labelId} value={l.labelId} data-testid={`label-choice-${l.name}`}>
              <Tag color={l.color}>{l.name}</Tag>
            </Checkbox>
          ))}
        </Checkbox.Group>
      )}
      <Space.Compact style={{ marginTop: 16, width: '100%' }}>
        <ColorPicker value={newColor} onChange={(c) => setNewColor(c.toHexString())} disabledAlpha />
        <Input
          value={newName}
          maxLength={32}
          placeholder={t('tags.newPlaceholder')}
          onChange={(e) => setNewName(e.target.value)}
          onPressEnter={() => void create()}
          data-testid="label-new-name"
        />
        <Button onClick={() => void create()} disabled={!newName.trim()} data-testid="label-new-add">
          {t('tags.create')}
        </Button>
      </Space.Compact>
      {error && (
        <Typography.Text type="danger" data-testid="label-error" style={{ display: 'block', marginTop: 8 }}>
          {error}
        </Typography.Text>
      )}
    </Modal>
  );
}
