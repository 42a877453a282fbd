// A group's settings, offered as the caller's group role allows (the server decides anyway and a refusal shows by
// its code): rename and describe (administrators and leaders), capacity (administrators), handover to another full
// member and dissolve (administrators), and leaving the group (any member). A handover waiting for the caller is
// accepted or declined here too.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Divider, Form, Input, InputNumber, Modal, Popconfirm, Select, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { dissolveGroup, getHandoverInfo, precessGroupHandover, quitGroup, searchGroupUser, submitGroupHandover, updateGroup } from '../../api/gen/groups/groups.ts';
import type { Group } from '../../api/gen/model/group.ts';
import type { ProcessHandoverRequestAction } from '../../api/gen/model/processHandoverRequestAction.ts';
import { useUserInfo } from '../../shared/session.ts';
import { bytesToGb, DESCRIPTION_MAX, gbToBytes, GROUP_NAME_MAX, groupErrorMessage, groupRules, type abilities } from './group-shared.ts';

interface Values {
  groupName?: string;
  description?: string;
  capacityGb?: number | null;
}

interface Props {
  group: Group;
  can: ReturnType<typeof abilities>;
  onClose: () => void;
  onChanged: () => void;
  /** The caller no longer reaches the group (dissolved or left). */
  onGone: () => void;
}

export function SettingsDialog({ group, can, onClose, onChanged, onGone }: Props) {
  const { t } = useTranslation();
  const user = useUserInfo();
  const rules = groupRules(t);
  const [form] = Form.useForm<Values>();
  const [failed, setFailed] = useState<string>();
  const [saved, setSaved] = useState(false);
  const [receiver, setReceiver] = useState<string>();
  const handovers = useQuery({
    queryKey: ['groups', 'handovers', group.groupId],
    queryFn: async ({ signal }) => (await getHandoverInfo({ groupId: group.groupId }, { signal, quiet: true })).data ?? [],
  });
  const members = useQuery({
    queryKey: ['groups', 'members', group.groupId, 'full'],
    queryFn: async ({ signal }) => (await searchGroupUser({ groupId: group.groupId, level: 1, pageNo: 1, pageSize: 100 }, { signal, quiet: true })).data?.list ?? [],
    enabled: can.administrator,
  });
  const pending = handovers.data?.find((h) => h.status === 'pending');

  const run = async (what: () => Promise<unknown>, after?: () => void) => {
    setFailed(undefined);
    setSaved(false);
    try {
      await what();
      after?.();
    } catch (err) {
      setFailed(groupErrorMessage(err, { name: group.groupName }));
    }
  };
  const save = (v: Values) =>
    run(
      () => {
        const capacity = can.administrator ? gbToBytes(v.capacityGb) : undefined;
        return updateGroup(
          { groupId: group.groupId, groupName: v.groupName ?? '', description: v.description ?? '', ...(capacity !== undefined ? { capacity } : {}) },
          { quiet: true },
        );
      },
      () => {
        setSaved(true);
        onChanged();
      },
    );
  const decide = (action: ProcessHandoverRequestAction) =>
    pending &&
    run(
      () => precessGroupHandover({ handoverId: pending.handoverId, action }, { quiet: true }),
      () => {
        void handovers.refetch();
        onChanged();
      },
    );

  return (
    <Modal open title={t('groups.settings')} onCancel={onClose} footer={null} width={560} data-testid="group-settings-dialog">
      {can.leader && (
        <Form
          form={form}
          layout="vertical"
          initialValues={{ groupName: group.groupName, description: group.description, capacityGb: bytesToGb(group.capacity) }}
          onFinish={(v) => void save(v)}
          autoComplete="off"
        >
          <Form.Item name="groupName" label={t('groups.name')} rules={rules.name}>
            <Input maxLength={GROUP_NAME_MAX + 10} data-testid="group-settings-name" />
          </Form.Item>
          <Form.Item name="description" label={t('groups.description')} rules={rules.description}>
            <Input.TextArea maxLength={DESCRIPTION_MAX + 10} rows={2} />
          </Form.Item>
          {can.administrator && (
            <Form.Item name="capacityGb" label={t('groups.capacityGb')} rules={rules.capacity}>
              <InputNumber style={{ width: '100%' }} placeholder={t('groups.unlimited')} data-testid="group-settings-capacity" />
            </Form.Item>
          )}
          <Button type="primary" htmlType="submit" data-testid="group-settings-save">
            {t('groups.save')}
          </Button>
        </Form>
      )}
      {saved && <Alert type="success" showIcon message={t('groups.saved')} style={{ marginTop: 12 }} />}
      {failed && <Alert type="error" showIcon message={failed} style={{ marginTop: 12 }} data-testid="group-settings-error" />}

      {pending && (
        <>
          <Divider />
          <Typography.Text data-testid="group-handover-pending">
            {pending.toUserId === user?.userId
              ? t('groups.handover.incoming', { from: pending.fromUserName, group: group.groupName })
              : t('groups.handover.pending', { name: pending.toUserName })}
          </Typography.Text>
          <Space style={{ display: 'flex', marginTop: 8 }}>
            {pending.toUserId === user?.userId ? (
              <>
                <Button type="primary" onClick={() => void decide('accept')} data-testid="group-handover-accept">
                  {t('groups.handover.accept')}
                </Button>
                <Button onClick={() => void decide('decline')}>{t('groups.handover.decline')}</Button>
              </>
            ) : (
              can.administrator && <Button onClick={() => void decide('cancel')}>{t('groups.handover.cancel')}</Button>
            )}
          </Space>
        </>
      )}
      {can.administrator && !pending && (
        <>
          <Divider />
          <Typography.Text strong>{t('groups.handover.title')}</Typography.Text>
          <Space style={{ display: 'flex', marginTop: 8 }}>
            <Select
              value={receiver}
              onChange={setReceiver}
              placeholder={t('groups.handover.to')}
              style={{ minWidth: 240 }}
              options={(members.data ?? []).filter((m) => m.userId !== user?.userId).map((m) => ({ value: m.userId, label: m.userRealName || m.userName }))}
              data-testid="group-handover-to"
            />
            <Button
              disabled={!receiver}
              onClick={() => receiver && void run(() => submitGroupHandover({ groupId: group.groupId, toUserId: receiver }, { quiet: true }), () => void handovers.refetch())}
            >
              {t('groups.handover.submit')}
            </Button>
          </Space>
        </>
      )}
      <Divider />
      <Space>
        {can.member && (
          <Popconfirm
            title={t('groups.quit.confirm', { name: group.groupName })}
            okText={t('groups.confirm')}
            cancelText={t('groups.cancel')}
            onConfirm={() => run(() => quitGroup({ groupId: group.groupId }, { quiet: true }), onGone)}
          >
            <Button data-testid="group-quit">{t('groups.quit.button')}</Button>
          </Popconfirm>
        )}
        {can.administrator && (
          <Popconfirm
            title={t('groups.dissolve.confirm', { name: group.groupName })}
            okText={t('groups.confirm')}
            cancelText={t('groups.cancel')}
            onConfirm={() => run(() => dissolveGroup({ groupId: group.groupId }, { quiet: true }), onGone)}
          >
            <Button danger data-testid="group-dissolve">
              {t('groups.dissolve.button')}
            </Button>
          </Popconfirm>
        )}
      </Space>
    </Modal>
  );
}
