// /tagRemark (issue #16 item 3): the user's labels (create, colour, rename, delete) and the items carrying the one
// picked, with their remarks in a column; labels are attached from the files' more-menu.
import { useState } from 'react';
import { Button, Card, ColorPicker, Empty, Input, List, Modal, Space, Tag, Typography } from 'antd';
import { DeleteOutlined, EditOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { createLabel, deleteLabel, getListLabelsQueryKey, getSearchPageQueryKey, modifyLabel, searchPage } from '../../api/gen/files/files.ts';
import type { Label } from '../../api/gen/model/label.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { confirmDialog, toastError } from '../../shared/notify.ts';
import { DEFAULT_LABEL_COLOR, useLabels } from './labels.ts';
import { DEFAULT_PAGE_SIZE } from './list-state.ts';
import { ResultList } from './ResultList.tsx';

export default function TagRemarkPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const labels = useLabels();
  const [picked, setPicked] = useState<string | undefined>();
  const [newName, setNewName] = useState('');
  const [newColor, setNewColor] = useState(DEFAULT_LABEL_COLOR);
  const [renaming, setRenaming] = useState<{ label: Label; name: string } | undefined>();
  const [page, setPage] = useState({ pageNo: 1, pageSize: DEFAULT_PAGE_SIZE });
  const request = { labelId: picked ?? '', ...page };
  const items = useQuery({
    queryKey: getSearchPageQueryKey(request),
    queryFn: async ({ signal }) => (await searchPage(request, { signal, quiet: true })).data,
    enabled: picked !== undefined,
    placeholderData: keepPreviousData,
  });
  const reload = () => queryClient.invalidateQueries({ queryKey: getListLabelsQueryKey() });
  const run = async (fn: () => Promise<unknown>, name?: string) => {
    try {
      await fn();
      await reload();
      if (picked) void items.refetch();
    } catch (err) {
      toastError(errorMessage(err, { name }));
    }
  };
  const current = (labels.data ?? []).find((l) => l.labelId === picked);

  return (
    <div data-testid="tag-remark-page" style={{ display: 'flex', gap: 16, alignItems: 'flex-start', flexWrap: 'wrap' }}>
      <Card title={t('tags.manageTitle')} style={{ width: 340 }} size="small">
        <Space.Compact style={{ width: '100%', marginBottom: 12 }}>
          <ColorPicker value={newColor} onChange={(c) => setNewColor(c.toHexString())} disabledAlpha />
          <Input value={newName} maxLength={32} placeholder={t('tags.newPlaceholder')} onChange={(e) => setNewName(e.target.value)} data-testid="tag-new-name" />
          <Button
            type="primary"
            disabled={!newName.trim()}
            onClick={() =>
              void run(async () => {
                await createLabel({ name: newName.trim(), color: newColor }, { quiet: true });
                setNewName('');
              }, newName.trim())
            }
            data-testid="tag-new-add"
          >
            {t('tags.create')}
          </Button>
        </Space.Compact>
        <List<Label>
          loading={labels.isLoading}
          dataSource={labels.data ?? []}
          locale={{ emptyText: <Empty description={t('tags.none')} image={Empty.PRESENTED_IMAGE_SIMPLE} /> }}
          renderItem={(l) => (
            <List.Item
              style={{ background: l.labelId === picked ? '#e6f4ff' : undefined, paddingInline: 8, cursor: 'pointer' }}
              onClick={() => {
                setPicked(l.labelId);
                setPage((p) => ({ ...p, pageNo: 1 }));
              }}
              data-testid={`tag-${l.name}`}
              actions={[
                <span key="c" onClick={(e) => e.stopPropagation()}>
                  <ColorPicker size="small" value={l.color} disabledAlpha onChangeComplete={(c) => void run(() => modifyLabel(l.labelId, { color: c.toHexString() }, { quiet: true }), l.name)} />
                </span>,
                <EditOutlined
                  key="r"
                  aria-label={t('files.rename')}
                  onClick={(e) => {
                    e.stopPropagation();
                    setRenaming({ label: l, name: l.name });
                  }}
                />,
                <DeleteOutlined
                  key="d"
                  aria-label={t('files.delete')}
                  data-testid={`tag-delete-${l.name}`}
                  onClick={(e) => {
                    e.stopPropagation();
                    confirmDialog({
                      title: t('tags.deleteConfirm', { name: l.name }),
                      okText: t('files.ok'),
                      cancelText: t('files.cancel'),
                      okButtonProps: { danger: true },
                      onOk: () =>
                        run(async () => {
                          await deleteLabel(l.labelId, { quiet: true });
                          if (picked === l.labelId) setPicked(undefined);
                        }, l.name),
                    });
                  }}
                />,
              ]}
            >
              <Space>
                <Tag color={l.color}>{l.name}</Tag>
                <Typography.Text type="secondary">{t('tags.itemCount', { count: l.itemCount })}</Typography.Text>
              </Space>
            </List.Item>
          )}
        />
      </Card>
      <div style={{ flex: 1, minWidth: 480 }}>
        <Typography.Title level={5}>{current ? t('tags.itemsWith', { name: current.name }) : t('tags.pick')}</Typography.Title>
        {picked !== undefined && (
          <ResultList
            rows={items.data?.list}
            total={items.data?.total ?? 0}
            pageNo={page.pageNo}
            pageSize={page.pageSize}
            onPage={(pageNo, pageSize) => setPage(pageSize !== page.pageSize ? { pageNo: 1, pageSize } : { pageNo, pageSize })}
            loading={items.isFetching}
            error={items.error}
            onChanged={() => {
              void items.refetch();
              void reload();
            }}
            emptyText={t('tags.noItems')}
          />
        )}
      </div>
      <Modal
        open={renaming !== undefined}
        title={t('files.rename')}
        okText={t('files.ok')}
        cancelText={t('files.cancel')}
        onCancel={() => setRenaming(undefined)}
        onOk={() =>
          renaming &&
          run(async () => {
            await modifyLabel(renaming.label.labelId, { name: renaming.name.trim() }, { quiet: true });
            setRenaming(undefined);
          }, renaming.name.trim())
        }
        okButtonProps={{ disabled: !renaming?.name.trim() }}
        destroyOnHidden
      >
        <Input value={renaming?.name} maxLength={32} onChange={(e) => setRenaming((r) => r && { ...r, name: e.target.value })} data-testid="tag-rename-input" />
      </Modal>
    </div>
  );
}
