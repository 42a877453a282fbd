// The group mapping of an LDAP connection or an OIDC provider (issue #19): mirror the directory's groups as drive
// groups, and/or map a directory group onto an existing drive group with a role. Drive groups are picked from every
// live group (administrators see them all), so a mapping never names a group that does not exist.
import { Button, Form, Input, Select, Space, Switch, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { getSearchGroupQueryKey, searchGroup } from '../../api/gen/groups/groups.ts';
import type { GroupRoleCode } from '../../api/gen/model/index.ts';

const ROLES: readonly GroupRoleCode[] = ['groupdefaultrole', 'group_ordinary_members', 'file_leader', 'group_leader', 'group_administrator'];
const GROUP_PAGE = { all: true, pageNo: 1, pageSize: 500 } as const;

/** The fields under `groupMapping`; `directoryHint` says what a directory group is here (a DN or a claim value). */
export function GroupMappingFields({ directoryHint }: { directoryHint: string }) {
  const { t } = useTranslation();
  const groups = useQuery({
    queryKey: getSearchGroupQueryKey(GROUP_PAGE),
    queryFn: async ({ signal }) => (await searchGroup(GROUP_PAGE, { signal, quiet: true })).data?.list ?? [],
  });
  const roleOptions = ROLES.map((r) => ({ value: r, label: t(`groups.role.${r}`) }));
  return (
    <div data-testid="group-mapping">
      <Typography.Title level={5}>{t('identity.mapping.title')}</Typography.Title>
      <Typography.Paragraph type="secondary">{t('identity.mapping.help')}</Typography.Paragraph>
      <Form.Item name={['groupMapping', 'mirror']} label={t('identity.mapping.mirror')} valuePropName="checked" extra={t('identity.mapping.mirrorHelp')}>
        <Switch data-testid="mapping-mirror" />
      </Form.Item>
      <Form.Item name={['groupMapping', 'mirrorRole']} label={t('identity.mapping.mirrorRole')}>
        <Select options={roleOptions} placeholder={t('groups.role.groupdefaultrole')} style={{ maxWidth: 240 }} />
      </Form.Item>
      <Form.List name={['groupMapping', 'map']}>
        {(fields, { add, remove }) => (
          <>
            {fields.map((f) => (
              <Space key={f.key} align="baseline" wrap data-testid="mapping-row">
                <Form.Item name={[f.name, 'directoryGroup']} rules={[{ required: true, max: 1024 }]}>
                  <Input placeholder={directoryHint} style={{ width: 260 }} />
                </Form.Item>
                <Form.Item name={[f.name, 'groupId']} rules={[{ required: true }]}>
                  <Select
                    showSearch
                    optionFilterProp="label"
                    loading={groups.isLoading}
                    placeholder={t('identity.mapping.driveGroup')}
                    options={(groups.data ?? []).map((g) => ({ value: g.groupId, label: g.groupName }))}
                    style={{ width: 200 }}
                  />
                </Form.Item>
                <Form.Item name={[f.name, 'roleCode']}>
                  <Select options={roleOptions} placeholder={t('groups.role.groupdefaultrole')} style={{ width: 180 }} />
                </Form.Item>
                <Button onClick={() => remove(f.name)} aria-label={t('identity.mapping.remove')}>×</Button>
              </Space>
            ))}
            <Form.Item>
              <Button onClick={() => add({})} data-testid="mapping-add">{t('identity.mapping.add')}</Button>
            </Form.Item>
          </>
        )}
      </Form.List>
    </div>
  );
}
