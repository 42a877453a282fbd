// Copy/move target picker: a folder tree loaded one level at a time (getTreeFolderData), so a deep drive costs
// one request per opened folder.
import { useEffect, useState } from 'react';
import { Modal, Tree, Typography } from 'antd';
import type { TreeDataNode } from 'antd';
import { useTranslation } from 'react-i18next';
import { getTreeFolderData } from '../../api/gen/files/files.ts';
import { errorMessage } from '../../shared/error-message.ts';

export interface MoveCopyDialogProps {
  open: boolean;
  mode: 'move' | 'copy';
  libCode: string;
  /** The library root's instance id (first breadcrumb), the target when the root itself is chosen. */
  rootId: string;
  /** Folders being moved: they and their subtrees cannot be targets. */
  excludeIds: ReadonlySet<string>;
  onSubmit: (targetId: string) => Promise<void>;
  onClose: () => void;
}

function replaceChildren(list: TreeDataNode[], key: string, children: TreeDataNode[]): TreeDataNode[] {
  return list.map((n) => (n.key === key ? { ...n, children } : n.children ? { ...n, children: replaceChildren(n.children, key, children) } : n));
}

export function MoveCopyDialog({ open, mode, libCode, rootId, excludeIds, onSubmit, onClose }: MoveCopyDialogProps) {
  const { t } = useTranslation();
  const [tree, setTree] = useState<TreeDataNode[]>([]);
  const [target, setTarget] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    if (!open) return;
    setTarget(undefined);
    setError(undefined);
    setTree([{ key: rootId, title: t('files.rootFolder'), isLeaf: false }]);
  }, [open, t, rootId]);

  const loadData = async (node: { key: React.Key }) => {
    const key = String(node.key);
    const res = await getTreeFolderData({ libCode, ...(key === rootId ? {} : { id: key }) });
    const children: TreeDataNode[] = (res.data ?? []).map((f) => ({
      key: f.instanceId,
      title: f.instanceName,
      isLeaf: f.isLeaf,
      disabled: excludeIds.has(f.instanceId),
    }));
    setTree((prev) => replaceChildren(prev, key, children));
  };

  const submit = async () => {
    if (!target) return;
    setBusy(true);
    try {
      await onSubmit(target);
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t(mode === 'move' ? 'files.moveTo' : 'files.copyTo')}
      onCancel={onClose}
      onOk={submit}
      okButtonProps={{ disabled: !target, loading: busy, 'data-testid': 'move-copy-ok' } as never}
      okText={t('files.ok')}
      cancelText={t('files.cancel')}
      destroyOnHidden
    >
      <div style={{ maxHeight: 400, overflow: 'auto' }} data-testid="folder-tree">
        <Tree treeData={tree} loadData={loadData} selectedKeys={target ? [target] : []} onSelect={(keys) => setTarget(keys[0] === undefined ? undefined : String(keys[0]))} />
      </div>
      {error && <Typography.Text type="danger">{error}</Typography.Text>}
    </Modal>
  );
}
