// The "new document" menu: blank Office documents and the administrators' templates. Loaded after the list (its
// icons and the templates query are not needed to show it; web/scripts/check-budget.ts).
import { Button, Dropdown } from 'antd';
import { FileExcelOutlined, FileOutlined, FilePptOutlined, FileWordOutlined, PlusOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { getListTemplatesQueryKey, listTemplates } from '../../api/gen/files/files.ts';
import type { OfficeKind } from '../../api/gen/model/officeKind.ts';

const OFFICE_KINDS: readonly { kind: OfficeKind; icon: React.ReactNode }[] = [
  { kind: 'docx', icon: <FileWordOutlined /> },
  { kind: 'xlsx', icon: <FileExcelOutlined /> },
  { kind: 'pptx', icon: <FilePptOutlined /> },
  // The plain file icon: the text one would be a chunk of its own shared with the first paint, for one menu entry.
  { kind: 'txt', icon: <FileOutlined /> },
];

export default function NewDocumentMenu({ onPick }: { onPick: (kind: OfficeKind, templateId?: string) => void }) {
  const { t } = useTranslation();
  // Administrators' templates join the "new" menu; a server without them just shows the blank documents.
  const templates = useQuery({
    queryKey: getListTemplatesQueryKey(),
    queryFn: async ({ signal }) => (await listTemplates({ signal, quiet: true })).data ?? [],
    retry: false,
  });
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        items: [
          ...OFFICE_KINDS.map(({ kind, icon }) => ({ key: kind, icon, label: t(`templates.kind.${kind}`), onClick: () => onPick(kind) })),
          ...(templates.data ?? [])
            .filter((tp) => !tp.builtIn)
            .map((tp) => ({ key: tp.templateId, label: t('templates.fromTemplate', { name: tp.name }), onClick: () => onPick(tp.kind, tp.templateId) })),
        ],
      }}
    >
      <Button icon={<PlusOutlined />} data-testid="new-document">
        {t('templates.newDocument')}
      </Button>
    </Dropdown>
  );
}
