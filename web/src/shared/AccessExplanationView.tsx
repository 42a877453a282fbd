// Explain access (SysRoleUser/explainAccess): what a user may do on an item, where the decision came from (owner,
// the nearest grant, the space's default, nothing) and the grants met from the item up to its space root. Shown by
// the properties dialog (files) and the grants screen (organisation), so it lives here rather than in one feature.
import { useState } from 'react';
import { Button, Descriptions, Space, Spin, Table, Tag, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { explainAccess } from '../api/gen/roles/roles.ts';
import { errorMessage } from './error-message.ts';
import type { AccessExplanation } from '../api/gen/model/accessExplanation.ts';
import type { AccessStep } from '../api/gen/model/accessStep.ts';

export function AccessExplanationView({ explanation: e }: { explanation: AccessExplanation }) {
  const { t, i18n } = useTranslation();
  const en = i18n.language === 'en_US';
  const role = (s: { roleName: string; roleNameEn: string; roleCode: string }) => (en ? s.roleNameEn || s.roleCode : s.roleName || s.roleCode);
  const source = e.source === 'default' && e.defaultRole ? t('org.access.source.defaultRole', { role: e.defaultRole }) : t(`org.access.source.${e.source}`);
  return (
    <div data-testid="access-explanation">
      <Descriptions column={1} size="small" bordered>
        <Descriptions.Item label={t('org.access.user')}>{e.userName}</Descriptions.Item>
        <Descriptions.Item label={t('org.access.decision')}>
          {e.denied ? (
            <Tag color="red" data-testid="access-denied">
              {t('org.access.denied')}
            </Tag>
          ) : e.allowed.length === 0 ? (
            <Tag data-testid="access-none">{t('org.access.nothing')}</Tag>
          ) : (
            <Space size={[4, 4]} wrap data-testid="access-allowed">
              {e.allowed.map((p) => (
                <Tag color="green" key={p}>
                  {t(`org.auth.${p}`)}
                </Tag>
              ))}
            </Space>
          )}
        </Descriptions.Item>
        <Descriptions.Item label={t('org.access.sourceLabel')}>
          <span data-testid="access-source">{source}</span>
        </Descriptions.Item>
      </Descriptions>
      {e.chain.length > 0 && (
        <>
          <Typography.Paragraph strong style={{ margin: '12px 0 4px' }}>
            {t('org.access.chain')}
          </Typography.Paragraph>
          <Table<AccessStep>
            size="small"
            rowKey="grantId"
            pagination={false}
            dataSource={e.chain}
            data-testid="access-chain"
            columns={[
              { title: t('org.access.on'), dataIndex: 'instanceName' },
              { title: t('org.grant.subject'), key: 'subject', render: (_: unknown, s) => `${t(`org.grant.kind.${s.subjectKind}`)}: ${s.subjectName}` },
              { title: t('org.grant.role'), key: 'role', render: (_: unknown, s) => (s.deny ? <Tag color="red">{role(s)}</Tag> : role(s)) },
              { title: t('org.access.decisive'), key: 'decisive', render: (_: unknown, s) => (s.decisive ? <Tag color="blue">{t('org.access.decides')}</Tag> : t('org.access.overridden')) },
            ]}
          />
        </>
      )}
    </div>
  );
}

/** "Explain access" for the caller on one item: asked only when opened (the properties dialog). */
export function ExplainAccessSection({ instanceId }: { instanceId: string }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const q = useQuery({
    queryKey: ['explain-access', instanceId],
    enabled: open,
    queryFn: async ({ signal }) => (await explainAccess({ instanceId }, { signal, quiet: true })).data,
  });
  if (!open)
    return (
      <Button type="link" size="small" style={{ paddingInline: 0, marginTop: 8 }} onClick={() => setOpen(true)} data-testid="explain-access">
        {t('org.access.explain')}
      </Button>
    );
  return (
    <div style={{ marginTop: 12 }}>
      <Typography.Paragraph strong style={{ marginBottom: 4 }}>
        {t('org.access.explain')}
      </Typography.Paragraph>
      {q.isLoading ? (
        <Spin size="small" />
      ) : q.isError ? (
        <Typography.Text type="danger" data-testid="explain-access-error">
          {errorMessage(q.error)}
        </Typography.Text>
      ) : q.data ? (
        <AccessExplanationView explanation={q.data} />
      ) : null}
    </div>
  );
}
