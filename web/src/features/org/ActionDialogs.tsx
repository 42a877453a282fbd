// The smaller dialogs of department management: reset a password, move accounts, purge a deleted account (hand its
// files to an account or to the administrators' recycle bin), delete a department (moving its members first).
import { useEffect, useState, type ReactNode } from 'react';
import { Alert, Form, Input, Modal, Radio, TreeSelect, Typography } from 'antd';
import type { FormInstance } from 'antd/es/form';
import { useTranslation } from 'react-i18next';
import { deleteDept, moveUsers, purgeUser, resetUserPassword } from '../../api/gen/org/org.ts';
import type { DeptTreeNode } from '../../api/gen/model/deptTreeNode.ts';
import type { UserAdmin } from '../../api/gen/model/userAdmin.ts';
import type { UserBatchResponse } from '../../api/gen/model/userBatchResponse.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { deptOptions, encryptForServer, orgRules } from './org-shared.ts';
import { UserPicker } from './UserPicker.tsx';

/** A form dialog: submit runs `action`, a failure stays in the dialog as its localized message. */
function FormDialog<V extends object>({
  open,
  title,
  form,
  testId,
  action,
  onClose,
  children,
  danger,
}: {
  open: boolean;
  title: string;
  form: FormInstance<V>;
  testId: string;
  action: (v: V) => Promise<void>;
  onClose: () => void;
  children: ReactNode;
  danger?: boolean;
}) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string>();
  useEffect(() => {
    if (open) {
      form.resetFields();
      setFailed(undefined);
    }
  }, [open, form]);
  const submit = async (v: V) => {
    setBusy(true);
    setFailed(undefined);
    try {
      await action(v);
      onClose();
    } catch (err) {
      setFailed(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open={open}
      title={title}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      confirmLoading={busy}
      okButtonProps={{ danger, 'data-testid': `${testId}-ok` } as never}
      forceRender
      destroyOnHidden
    >
      <Form form={form} layout="vertical" onFinish={(v) => void submit(v)} data-testid={testId} autoComplete="off">
        {children}
        {failed && <Alert type="error" showIcon message={failed} data-testid={`${testId}-error`} />}
      </Form>
    </Modal>
  );
}

/** Throws the first refused account's error so the dialog shows it; a batch of one is the common case. */
export function firstFailure(res: UserBatchResponse): { code: string; message: string } | undefined {
  return res.data?.failed[0];
}

export function ResetPasswordDialog({ user, onClose, onDone }: { user: UserAdmin | undefined; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const rules = orgRules(t);
  const [form] = Form.useForm<{ password: string; confirmPassword: string }>();
  return (
    <FormDialog
      open={user !== undefined}
      title={t('org.user.resetPasswordOf', { name: user?.userName ?? '' })}
      form={form}
      testId="reset-password-form"
      onClose={onClose}
      action={async (v) => {
        await resetUserPassword({ userId: user!.userId, password: await encryptForServer(v.password) }, { quiet: true });
        onDone();
      }}
    >
      <Typography.Paragraph type="secondary">{t('org.user.resetPasswordHint')}</Typography.Paragraph>
      <Form.Item name="password" label={t('account.password.new')} rules={rules.password(() => user?.userName)}>
        <Input.Password autoComplete="new-password" data-testid="reset-password" />
      </Form.Item>
      <Form.Item name="confirmPassword" label={t('account.password.confirm')} dependencies={['password']} rules={rules.confirm('password')}>
        <Input.Password autoComplete="new-password" data-testid="reset-confirm" />
      </Form.Item>
    </FormDialog>
  );
}

export function MoveUsersDialog({ users, tree, onClose, onDone }: { users: UserAdmin[] | undefined; tree: DeptTreeNode[]; onClose: () => void; onDone: (res: UserBatchResponse) => void }) {
  const { t } = useTranslation();
  const rules = orgRules(t);
  const [form] = Form.useForm<{ deptId: string }>();
  return (
    <FormDialog
      open={users !== undefined}
      title={t('org.user.moveTitle', { count: users?.length ?? 0 })}
      form={form}
      testId="move-users-form"
      onClose={onClose}
      action={async (v) => onDone(await moveUsers({ userIds: (users ?? []).map((u) => u.userId), deptId: v.deptId }, { quiet: true }))}
    >
      <Form.Item name="deptId" label={t('org.user.targetDept')} rules={rules.required('org.validation.deptRequired')}>
        <TreeSelect treeData={deptOptions(tree, undefined, t('org.dept.company'))} treeDefaultExpandAll showSearch treeNodeFilterProp="title" data-testid="move-users-dept" />
      </Form.Item>
    </FormDialog>
  );
}

export function PurgeDialog({ user, onClose, onDone }: { user: UserAdmin | undefined; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const rules = orgRules(t);
  const [form] = Form.useForm<{ target: 'user' | 'bin'; handOverTo?: string }>();
  const target = Form.useWatch('target', form);
  return (
    <FormDialog
      open={user !== undefined}
      title={t('org.user.purgeTitle', { name: user?.userName ?? '' })}
      form={form}
      testId="purge-form"
      danger
      onClose={onClose}
      action={async (v) => {
        await purgeUser({ userId: user!.userId, ...(v.target === 'user' && v.handOverTo ? { handOverTo: v.handOverTo } : {}) }, { quiet: true });
        onDone();
      }}
    >
      <Typography.Paragraph type="warning">{t('org.user.purgeWarning')}</Typography.Paragraph>
      <Form.Item name="target" label={t('org.user.purgeFiles')} initialValue="user" rules={rules.required('org.validation.purgeTarget')}>
        <Radio.Group>
          <Radio value="user" data-testid="purge-to-user">{t('org.user.purgeToUser')}</Radio>
          <Radio value="bin" data-testid="purge-to-bin">{t('org.user.purgeToBin')}</Radio>
        </Radio.Group>
      </Form.Item>
      {target !== 'bin' && (
        <Form.Item name="handOverTo" label={t('org.user.handOverTo')} rules={rules.required('org.validation.handOverRequired')}>
          <UserPicker exclude={user?.userId} testId="purge-hand-over" />
        </Form.Item>
      )}
    </FormDialog>
  );
}

export function DeleteDeptDialog({ dept, tree, onClose, onDone }: { dept: { id: string; name: string; memberCount: number } | undefined; tree: DeptTreeNode[]; onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const rules = orgRules(t);
  const [form] = Form.useForm<{ moveMembersTo?: string }>();
  const hasMembers = (dept?.memberCount ?? 0) > 0;
  return (
    <FormDialog
      open={dept !== undefined}
      title={t('org.dept.deleteTitle', { name: dept?.name ?? '' })}
      form={form}
      testId="delete-dept-form"
      danger
      onClose={onClose}
      action={async (v) => {
        await deleteDept({ id: dept!.id, ...(v.moveMembersTo ? { moveMembersTo: v.moveMembersTo } : {}) }, { quiet: true });
        onDone();
      }}
    >
      <Typography.Paragraph>{t('org.dept.deleteHint')}</Typography.Paragraph>
      {hasMembers && (
        <Form.Item name="moveMembersTo" label={t('org.dept.moveMembersTo', { count: dept?.memberCount ?? 0 })} rules={rules.required('org.validation.moveMembersRequired')}>
          <TreeSelect treeData={deptOptions(tree, dept?.id, t('org.dept.company'))} treeDefaultExpandAll showSearch treeNodeFilterProp="title" data-testid="delete-dept-move-to" />
        </Form.Item>
      )}
    </FormDialog>
  );
}
