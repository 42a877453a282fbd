// Create or edit an account: name (fixed once created), real name, password (new accounts), department, e-mail,
// phone, personal quota, expiry (empty: never), enabled, a forced password change at first sign-in, labels.
import { useEffect, useState } from 'react';
import { Alert, Checkbox, Form, Input, InputNumber, Modal, Select, Switch, TreeSelect } from 'antd';
import { useTranslation } from 'react-i18next';
import { saveUser } from '../../api/gen/org/org.ts';
import type { DeptTreeNode } from '../../api/gen/model/deptTreeNode.ts';
import type { UserAdmin } from '../../api/gen/model/userAdmin.ts';
import type { SaveUserRequest } from '../../api/gen/model/saveUserRequest.ts';
import { bytesToGb, dayToExpiry, deptOptions, encryptForServer, expiryToDay, gbToBytes, orgErrorMessage, orgRules } from './org-shared.ts';

interface Values {
  userName?: string;
  realName?: string;
  password?: string;
  confirmPassword?: string;
  deptId?: string;
  email?: string;
  phone?: string;
  quotaGb?: number | null;
  expires?: string;
  enabled?: boolean;
  mustChangePassword?: boolean;
  labels?: string[];
}

export type UserDialogState = { mode: 'create'; deptId: string } | { mode: 'edit'; user: UserAdmin };

export function UserDialog({ state, tree, onClose, onSaved }: { state: UserDialogState | undefined; tree: DeptTreeNode[]; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const rules = orgRules(t);
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string>();
  const creating = state?.mode === 'create';
  useEffect(() => {
    if (!state) return;
    setFailed(undefined);
    form.resetFields();
    if (state.mode === 'create') form.setFieldsValue({ deptId: state.deptId, enabled: true, mustChangePassword: true, labels: [], quotaGb: null });
    else {
      const u = state.user;
      form.setFieldsValue({
        userName: u.userName,
        realName: u.realName,
        deptId: u.deptId ?? undefined,
        email: u.email,
        phone: u.phone,
        quotaGb: bytesToGb(u.quotaBytes),
        expires: expiryToDay(u.userExpiredTime),
        enabled: u.userIsEnabled === 1,
        labels: u.labels,
      });
    }
  }, [state, form]);

  const submit = async (v: Values) => {
    if (!state) return;
    setBusy(true);
    setFailed(undefined);
    try {
      const common: SaveUserRequest = {
        realName: v.realName?.trim() ?? '',
        ...(v.deptId ? { deptId: v.deptId } : {}),
        email: v.email?.trim() ?? '',
        phone: v.phone?.trim() ?? '',
        quotaBytes: gbToBytes(v.quotaGb),
        userExpiredTime: dayToExpiry(v.expires),
        userIsEnabled: v.enabled === false ? 0 : 1,
        labels: v.labels ?? [],
      };
      const body: SaveUserRequest =
        state.mode === 'create'
          ? { ...common, userName: v.userName?.trim(), password: await encryptForServer(v.password ?? ''), mustChangePassword: v.mustChangePassword !== false }
          : { ...common, userId: state.user.userId };
      await saveUser(body, { quiet: true });
      onSaved();
      onClose();
    } catch (err) {
      setFailed(orgErrorMessage('user', err, { name: v.userName ?? (state.mode === 'edit' ? state.user.userName : '') }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={state !== undefined}
      title={t(creating ? 'org.user.create' : 'org.user.edit')}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      confirmLoading={busy}
      okButtonProps={{ 'data-testid': 'user-dialog-ok' } as never}
      forceRender
      destroyOnHidden
      width={560}
    >
      <Form form={form} layout="vertical" onFinish={(v) => void submit(v)} data-testid="user-form" autoComplete="off">
        <Form.Item name="userName" label={t('org.user.userName')} rules={creating ? rules.userName : []}>
          <Input maxLength={128} disabled={!creating} data-testid="user-name" autoComplete="off" />
        </Form.Item>
        <Form.Item name="realName" label={t('org.user.realName')}>
          <Input maxLength={128} data-testid="user-real-name" />
        </Form.Item>
        {creating && (
          <>
            <Form.Item name="password" label={t('org.user.password')} rules={rules.password(() => form.getFieldValue('userName') as string | undefined)}>
              <Input.Password autoComplete="new-password" data-testid="user-password" />
            </Form.Item>
            <Form.Item name="confirmPassword" label={t('account.password.confirm')} dependencies={['password']} rules={rules.confirm('password')}>
              <Input.Password autoComplete="new-password" data-testid="user-confirm-password" />
            </Form.Item>
            <Form.Item name="mustChangePassword" valuePropName="checked">
              <Checkbox data-testid="user-must-change">{t('org.user.mustChangePassword')}</Checkbox>
            </Form.Item>
          </>
        )}
        <Form.Item name="deptId" label={t('org.user.dept')} rules={rules.required('org.validation.deptRequired')}>
          <TreeSelect treeData={deptOptions(tree, undefined, t('org.dept.company'))} treeDefaultExpandAll showSearch treeNodeFilterProp="title" data-testid="user-dept" />
        </Form.Item>
        <Form.Item name="email" label={t('org.user.email')} rules={rules.email}>
          <Input maxLength={254} data-testid="user-email" />
        </Form.Item>
        <Form.Item name="phone" label={t('org.user.phone')} rules={rules.phone}>
          <Input maxLength={32} data-testid="user-phone" />
        </Form.Item>
        <Form.Item name="quotaGb" label={t('org.user.quotaGb')} rules={rules.quota}>
          <InputNumber min={0} style={{ width: '100%' }} placeholder={t('org.unlimited')} data-testid="user-quota" />
        </Form.Item>
        <Form.Item name="expires" label={t('org.user.expires')} extra={t('org.user.expiresHint')}>
          <Input type="date" data-testid="user-expires" />
        </Form.Item>
        <Form.Item name="enabled" label={t('org.user.enabled')} valuePropName="checked">
          <Switch data-testid="user-enabled" />
        </Form.Item>
        <Form.Item name="labels" label={t('org.user.labels')} rules={rules.labels}>
          <Select mode="tags" tokenSeparators={[',']} open={false} placeholder={t('org.user.labelsHint')} data-testid="user-labels" />
        </Form.Item>
        {failed && <Alert type="error" showIcon message={failed} data-testid="user-dialog-error" />}
      </Form>
    </Modal>
  );
}
