// Create a group (newGroup): name, description and capacity, checked against the contract's rules before anything
// is sent; a refusal (a taken name, a capacity outside policy) shows in the dialog by its code.
import { useEffect, useState } from 'react';
import { Alert, Form, Input, InputNumber, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { newGroup } from '../../api/gen/groups/groups.ts';
import type { Group } from '../../api/gen/model/group.ts';
import { DESCRIPTION_MAX, gbToBytes, GROUP_NAME_MAX, groupErrorMessage, groupRules } from './group-shared.ts';

interface Values {
  groupName?: string;
  description?: string;
  capacityGb?: number | null;
}

export function NewGroupDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (group: Group) => void }) {
  const { t } = useTranslation();
  const rules = groupRules(t);
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string>();
  useEffect(() => {
    if (open) {
      form.resetFields();
      setFailed(undefined);
    }
  }, [open, form]);

  const submit = async (v: Values) => {
    setBusy(true);
    setFailed(undefined);
    const groupName = v.groupName ?? '';
    try {
      const capacity = gbToBytes(v.capacityGb);
      const res = await newGroup(
        { groupName, ...(v.description ? { description: v.description } : {}), ...(capacity !== undefined ? { capacity } : {}) },
        { quiet: true },
      );
      if (res.data) onCreated(res.data);
      onClose();
    } catch (err) {
      setFailed(groupErrorMessage(err, { name: groupName }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t('groups.new')}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('groups.confirm')}
      cancelText={t('groups.cancel')}
      confirmLoading={busy}
      okButtonProps={{ 'data-testid': 'group-dialog-ok' } as never}
      forceRender
      destroyOnHidden
    >
      <Form form={form} layout="vertical" onFinish={(v) => void submit(v)} data-testid="group-form" autoComplete="off">
        <Form.Item name="groupName" label={t('groups.name')} rules={rules.name}>
          <Input maxLength={GROUP_NAME_MAX + 10} data-testid="group-name" />
        </Form.Item>
        <Form.Item name="description" label={t('groups.description')} rules={rules.description}>
          <Input.TextArea maxLength={DESCRIPTION_MAX + 10} rows={3} data-testid="group-description" />
        </Form.Item>
        <Form.Item name="capacityGb" label={t('groups.capacityGb')} rules={rules.capacity} extra={t('groups.capacityHint')}>
          <InputNumber style={{ width: '100%' }} data-testid="group-capacity" />
        </Form.Item>
        {failed && <Alert type="error" showIcon message={failed} data-testid="group-dialog-error" />}
      </Form>
    </Modal>
  );
}
