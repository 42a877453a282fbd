// Change-password dialog (spec 5): old password required; new required unless resetPassword; confirm required and
// equal; at least 8 characters; a strength meter; closing with unsaved changes asks first. Success signs out.
// Loaded on first open through PasswordDialog.tsx: antd's Form engine is not part of the files screen's first load.
import { useState } from 'react';
import { Alert, App, Checkbox, Form, Input, Modal, Progress, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { changePassword, getPlatformInfo } from '../../api/gen/session/session.ts';
import { encryptPassword } from '../../shared/wire-encoding.ts';
import { PASSWORD_MIN_LENGTH, passwordStrength } from '../../shared/format.ts';
import { signOut } from '../../shared/account.ts';
import { flashAfterReload } from '../../shared/notify.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { strengthLevel, type PasswordDialogProps } from './password.ts';

interface Values {
  oldPassword?: string;
  newPassword?: string;
  confirmPassword?: string;
  resetPassword?: boolean;
}

const STRENGTH_COLORS = ['#ff4d4f', '#ff4d4f', '#faad14', '#faad14', '#52c41a', '#52c41a'];

export default function PasswordModal(props: PasswordDialogProps) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  const newPassword = Form.useWatch('newPassword', form) ?? '';
  const reset = Form.useWatch('resetPassword', form) ?? false;
  const strength = passwordStrength(newPassword, props.userName);

  const close = () => {
    form.resetFields();
    setFailed(null);
    props.onClose();
  };
  const requestClose = () => {
    const v = form.getFieldsValue();
    const dirty = !!(v.oldPassword || v.newPassword || v.confirmPassword || v.resetPassword);
    if (!dirty) return close();
    modal.confirm({ title: t('common.prompt'), content: t('account.password.discardChanges'), okText: t('common.confirm'), cancelText: t('common.cancel'), onOk: close, zIndex: 2100 });
  };

  const submit = async (v: Values) => {
    setBusy(true);
    setFailed(null);
    try {
      // Quiet: the dialog shows the failure itself, once.
      const info = (await getPlatformInfo({ quiet: true })).data;
      if (!info) throw new Error('no platform info');
      const body = {
        userId: props.userId,
        resetPassword: v.resetPassword === true,
        ...(v.oldPassword ? { oldPassword: await encryptPassword(v.oldPassword, info.publicKey) } : {}),
        newPassword: v.newPassword ? await encryptPassword(v.newPassword, info.publicKey) : '',
      };
      await changePassword(body, { quiet: true });
      // Signing out reloads the page: the message is shown by the sign-in page that follows.
      flashAfterReload('success', 'PasswordModifiedSuccessful');
      close();
      // The server ended every session of this user; sign out locally and go to /login.
      await signOut({ callServer: false });
    } catch (e) {
      setFailed(`${t('login.PasswordModifiedFailed')}${t('common.colon')}${errorMessage(e)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={props.open}
      title={t('account.password.title')}
      onCancel={props.forced ? undefined : requestClose}
      closable={!props.forced}
      keyboard={!props.forced}
      cancelButtonProps={props.forced ? { style: { display: 'none' } } : undefined}
      onOk={() => form.submit()}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      confirmLoading={busy}
      mask={{ closable: false }}
      destroyOnHidden
      forceRender
      zIndex={2000}
    >
      {props.forced && <Alert type="warning" showIcon message={t('org.forcedPassword')} style={{ marginBottom: 16 }} data-testid="password-forced" />}
      <Form form={form} layout="vertical" onFinish={(v) => void submit(v)} data-testid="password-form" autoComplete="off">
        <Form.Item
          name="oldPassword"
          label={t('account.password.old')}
          rules={[{ required: !reset, message: t('account.password.enterOld') }]}
        >
          <Input.Password autoComplete="current-password" data-testid="old-password" />
        </Form.Item>
        {props.allowReset && (
          <Form.Item name="resetPassword" valuePropName="checked">
            <Checkbox>{t('account.password.reset')}</Checkbox>
          </Form.Item>
        )}
        <Form.Item
          name="newPassword"
          label={t('account.password.new')}
          rules={[
            { required: !reset, message: t('account.password.inputPassword') },
            { min: PASSWORD_MIN_LENGTH, message: t('account.password.minLength', { count: PASSWORD_MIN_LENGTH }) },
            {
              validator: async (_r, value: string | undefined) => {
                if (value && value.length >= PASSWORD_MIN_LENGTH && passwordStrength(value, props.userName) < 2) {
                  throw new Error(t('account.password.tooWeak'));
                }
              },
            },
          ]}
        >
          <Input.Password autoComplete="new-password" data-testid="new-password" />
        </Form.Item>
        <div data-testid="strength-meter" data-strength={strength} style={{ marginTop: -12, marginBottom: 12 }}>
          <Typography.Text type="secondary">{t('account.password.strength')}: {t(`account.password.strengthLevel.${strengthLevel(strength)}`)}</Typography.Text>
          <Progress percent={(strength / 5) * 100} steps={5} showInfo={false} strokeColor={STRENGTH_COLORS[strength]} size="small" />
        </div>
        <Form.Item
          name="confirmPassword"
          label={t('account.password.confirm')}
          dependencies={['newPassword']}
          rules={[
            { required: !reset, message: t('account.password.enterAgain') },
            ({ getFieldValue }) => ({
              validator: async (_r, value: string | undefined) => {
                if (value && value !== getFieldValue('newPassword')) throw new Error(t('account.password.inconsistent'));
              },
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" data-testid="confirm-password" />
        </Form.Item>
        {failed && <Alert type="error" showIcon message={failed} data-testid="password-failed" />}
      </Form>
    </Modal>
  );
}
