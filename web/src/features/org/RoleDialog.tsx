// Create or change a custom role: code (fixed once created), Chinese and English names, kind, deny flag, sort and
// its authorities as checkboxes. A deny role holds no authority (the server refuses one with authorities too).
import { useEffect, useState } from 'react';
import { Alert, Checkbox, Form, Input, InputNumber, Modal, Radio, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import { roleInfo } from '../../api/gen/roles/roles.ts';
import { Permission } from '../../api/gen/model/permission.ts';
import type { Role } from '../../api/gen/model/role.ts';
import type { RoleKind } from '../../api/gen/model/roleKind.ts';
import { errorMessage } from '../../shared/error-message.ts';

export const PERMISSIONS = Object.values(Permission);
export const ROLE_CODE_PATTERN = /^[A-Za-z][A-Za-z0-9_]{1,63}$/;

interface Values {
  roleCode?: string;
  roleName?: string;
  roleNameEn?: string;
  kind?: RoleKind;
  deny?: boolean;
  sort?: number;
  authorities?: Permission[];
}

export type RoleDialogState = { mode: 'create' } | { mode: 'edit'; role: Role };

export function RoleDialog({ state, onClose, onSaved }: { state: RoleDialogState | undefined; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string>();
  const deny = Form.useWatch('deny', form) ?? false;
  const creating = state?.mode === 'create';
  useEffect(() => {
    if (!state) return;
    setFailed(undefined);
    form.resetFields();
    if (state.mode === 'create') form.setFieldsValue({ kind: 'file', deny: false, sort: 1000, authorities: ['view'] });
    else {
      const r = state.role;
      form.setFieldsValue({ roleCode: r.roleCode, roleName: r.roleName, roleNameEn: r.roleNameEn, kind: r.kind, deny: r.deny, sort: r.sort, authorities: r.authorities });
    }
  }, [state, form]);

  const submit = async (v: Values) => {
    if (!state) return;
    setBusy(true);
    setFailed(undefined);
    try {
      await roleInfo(
        {
          ...(state.mode === 'edit' ? { roleId: state.role.roleId } : {}),
          roleCode: v.roleCode?.trim() ?? '',
          roleName: v.roleName?.trim() ?? '',
          roleNameEn: v.roleNameEn?.trim() ?? '',
          kind: v.kind,
          deny: v.deny === true,
          sort: v.sort ?? 1000,
          // In catalogue order, as the server stores them.
          authorities: v.deny ? [] : PERMISSIONS.filter((p) => (v.authorities ?? []).includes(p)),
        },
        { quiet: true },
      );
      onSaved();
      onClose();
    } catch (err) {
      setFailed(errorMessage(err, { name: v.roleCode }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={state !== undefined}
      title={t(creating ? 'org.role.create' : 'org.role.edit')}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      confirmLoading={busy}
      okButtonProps={{ 'data-testid': 'role-dialog-ok' } as never}
      forceRender
      destroyOnHidden
      width={600}
    >
      <Form form={form} layout="vertical" onFinish={(v) => void submit(v)} data-testid="role-form" autoComplete="off">
        <Form.Item
          name="roleCode"
          label={t('org.role.code')}
          rules={creating ? [{ required: true, message: t('org.validation.roleCodeRequired') }, { pattern: ROLE_CODE_PATTERN, message: t('org.validation.roleCodePattern') }] : []}
        >
          <Input maxLength={64} disabled={!creating} data-testid="role-code" />
        </Form.Item>
        <Form.Item name="roleName" label={t('org.role.nameZh')} rules={[{ required: true, whitespace: true, message: t('org.validation.roleNameRequired') }]}>
          <Input maxLength={64} data-testid="role-name" />
        </Form.Item>
        <Form.Item name="roleNameEn" label={t('org.role.nameEn')}>
          <Input maxLength={64} data-testid="role-name-en" />
        </Form.Item>
        <Form.Item name="kind" label={t('org.role.kind')}>
          <Radio.Group disabled={!creating} options={(['file', 'group', 'groupShare'] as const).map((k) => ({ value: k, label: t(`org.role.kinds.${k}`) }))} />
        </Form.Item>
        <Form.Item name="deny" label={t('org.role.deny')} valuePropName="checked" extra={t('org.role.denyHint')}>
          <Switch data-testid="role-deny" />
        </Form.Item>
        <Form.Item
          name="authorities"
          label={t('org.role.authorities')}
          rules={[
            {
              validator: async (_r, v: Permission[] | undefined) => {
                if (!deny && (v ?? []).length === 0) throw new Error(t('org.validation.authoritiesRequired'));
              },
            },
          ]}
        >
          <Checkbox.Group disabled={deny} options={PERMISSIONS.map((p) => ({ value: p, label: t(`org.auth.${p}`) }))} data-testid="role-authorities" />
        </Form.Item>
        <Form.Item name="sort" label={t('org.dept.sort')}>
          <InputNumber min={0} max={100_000} precision={0} style={{ width: '100%' }} />
        </Form.Item>
        {failed && <Alert type="error" showIcon message={failed} data-testid="role-dialog-error" />}
      </Form>
    </Modal>
  );
}
