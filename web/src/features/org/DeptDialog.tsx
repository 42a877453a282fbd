// Create, change (name, quota, sort, managers) or move a department. The parent picker disables the department itself
// and everything below it, and the server refuses such a move too (409 CONFLICT); a quota over the parent's remaining
// quota comes back as SPACE_NOT_ENOUGH and is shown by its code.
import { useEffect, useState } from 'react';
import { Alert, Form, Input, InputNumber, Modal, TreeSelect } from 'antd';
import { useTranslation } from 'react-i18next';
import { saveDept } from '../../api/gen/org/org.ts';
import type { DeptInfo } from '../../api/gen/model/deptInfo.ts';
import type { DeptTreeNode } from '../../api/gen/model/deptTreeNode.ts';
import type { SaveDeptRequest } from '../../api/gen/model/saveDeptRequest.ts';
import { bytesToGb, deptOptions, gbToBytes, orgErrorMessage, orgRules } from './org-shared.ts';
import { UserPicker } from './UserPicker.tsx';

export type DeptDialogMode = { mode: 'create'; parentId: string } | { mode: 'edit'; dept: DeptInfo } | { mode: 'move'; dept: DeptInfo };

interface Values {
  name?: string;
  parentId?: string;
  quotaGb?: number | null;
  sort?: number;
  managerIds?: string[];
}

export function DeptDialog({ state, tree, onClose, onSaved }: { state: DeptDialogMode | undefined; tree: DeptTreeNode[]; onClose: () => void; onSaved: (id: string) => void }) {
  const { t } = useTranslation();
  const rules = orgRules(t);
  const [form] = Form.useForm<Values>();
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string>();
  useEffect(() => {
    if (!state) return;
    setFailed(undefined);
    form.resetFields();
    if (state.mode === 'create') form.setFieldsValue({ parentId: state.parentId, quotaGb: null, sort: 0, managerIds: [] });
    else
      form.setFieldsValue({
        name: state.dept.name,
        parentId: state.dept.parentId ?? undefined,
        quotaGb: bytesToGb(state.dept.quotaBytes),
        sort: state.dept.sort,
        managerIds: state.dept.managers.map((m) => m.userId),
      });
  }, [state, form]);

  const submit = async (v: Values) => {
    if (!state) return;
    setBusy(true);
    setFailed(undefined);
    let body: SaveDeptRequest;
    if (state.mode === 'move') body = { id: state.dept.id, parentId: v.parentId };
    else {
      body = { name: v.name?.trim() ?? '', quotaBytes: gbToBytes(v.quotaGb), sort: v.sort ?? 0, ...(v.managerIds ? { managerIds: v.managerIds } : {}) };
      if (state.mode === 'create') body.parentId = v.parentId;
      else body.id = state.dept.id;
    }
    try {
      const res = await saveDept(body, { quiet: true });
      onSaved(res.data?.id ?? (state.mode === 'create' ? '' : state.dept.id));
      onClose();
    } catch (err) {
      setFailed(orgErrorMessage('dept', err, { name: v.name ?? (state.mode === 'create' ? '' : state.dept.name) }));
    } finally {
      setBusy(false);
    }
  };

  const mode = state?.mode;
  const exclude = state && state.mode !== 'create' ? state.dept.id : undefined;
  const known = state && state.mode !== 'create' ? state.dept.managers.map((m) => ({ value: m.userId, label: `${m.realName || m.userName} (${m.userName})` })) : [];
  return (
    <Modal
      open={state !== undefined}
      title={t(mode === 'create' ? 'org.dept.create' : mode === 'move' ? 'org.dept.move' : 'org.dept.edit')}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      confirmLoading={busy}
      okButtonProps={{ 'data-testid': 'dept-dialog-ok' } as never}
      forceRender
      destroyOnHidden
    >
      <Form form={form} layout="vertical" onFinish={(v) => void submit(v)} data-testid="dept-form" autoComplete="off">
        {mode !== 'move' && (
          <Form.Item name="name" label={t('org.dept.name')} rules={rules.deptName}>
            <Input maxLength={128} data-testid="dept-name" />
          </Form.Item>
        )}
        {mode !== 'edit' && (
          <Form.Item name="parentId" label={t('org.dept.parent')} rules={rules.required('org.validation.parentRequired')}>
            <TreeSelect treeData={deptOptions(tree, exclude, t('org.dept.company'))} treeDefaultExpandAll showSearch treeNodeFilterProp="title" data-testid="dept-parent" />
          </Form.Item>
        )}
        {mode !== 'move' && (
          <>
            <Form.Item name="quotaGb" label={t('org.dept.quotaGb')} rules={rules.quota} extra={t('org.dept.quotaHint')}>
              <InputNumber min={0} step={1} style={{ width: '100%' }} placeholder={t('org.unlimited')} data-testid="dept-quota" />
            </Form.Item>
            <Form.Item name="sort" label={t('org.dept.sort')}>
              <InputNumber min={0} max={1_000_000} precision={0} style={{ width: '100%' }} />
            </Form.Item>
            <Form.Item name="managerIds" label={t('org.dept.managers')}>
              <UserPicker mode="multiple" known={known} />
            </Form.Item>
          </>
        )}
        {failed && <Alert type="error" showIcon message={failed} data-testid="dept-dialog-error" />}
      </Form>
    </Modal>
  );
}
