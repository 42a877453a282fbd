// /integrationPlatform (issue #19, administrators): company sign-in. OpenID Connect providers (the redirect URI to
// register at the provider is shown; a stored client secret is never shown, only that one is kept), the LDAP/AD
// connection with test, search preview, sync now and the sync reports, and whether local passwords sign in staff.
// Both carry a group mapping: directory groups (LDAP group DNs, values of the groups claim) as drive groups.
import { useState } from 'react';
import { Alert, Button, Form, Input, InputNumber, Modal, Radio, Space, Switch, Table, Tabs, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import {
  deleteOidcProvider, getGetIdentitySettingsQueryKey, getGetLdapConfigQueryKey, getIdentitySettings, getLdapConfig,
  getListLdapSyncReportsQueryKey, getListOidcProvidersQueryKey, listLdapSyncReports, listOidcProviders, previewLdapUsers,
  saveIdentitySettings, saveLdapConfig, saveOidcProvider, syncLdapNow, testLdapConnection,
} from '../../api/gen/identity/identity.ts';
import type { LdapConfigInput, LdapEntry, OidcProvider, OidcProviderInput, SyncReport } from '../../api/gen/model/index.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { formatDate } from '../../shared/format.ts';
import { confirmDialog, toastError, toastSuccess } from '../../shared/notify.ts';
import { addStrings } from '../../shared/page-strings.ts';
import { GroupMappingFields } from './GroupMappingFields.tsx';
import zhCN from './strings.zh_CN.json';
import enUS from './strings.en_US.json';

addStrings({ zh_CN: zhCN, en_US: enUS });

function OidcTab() {
  const { t } = useTranslation();
  const list = useQuery({ queryKey: getListOidcProvidersQueryKey(), queryFn: async ({ signal }) => (await listOidcProviders({ signal, quiet: true })).data ?? [] });
  const [editing, setEditing] = useState<{ id?: string; hasSecret: boolean; redirectUri?: string } | undefined>();
  const [form] = Form.useForm<OidcProviderInput & { claims: NonNullable<OidcProviderInput['claims']> }>();

  const open = (p?: OidcProvider) => {
    form.resetFields();
    form.setFieldsValue(
      p
        ? { name: p.name, issuer: p.issuer, clientId: p.clientId, scopes: p.scopes, claims: p.claims, enabled: p.enabled, groupMapping: p.groupMapping }
        : { scopes: 'openid profile email', enabled: true, claims: {}, groupMapping: { mirror: false, map: [] } },
    );
    setEditing(p ? { id: p.id, hasSecret: p.hasClientSecret, redirectUri: p.redirectUri } : { hasSecret: false });
  };
  const save = async () => {
    const v = await form.validateFields();
    try {
      await saveOidcProvider({ ...v, ...(editing?.id ? { id: editing.id } : {}), ...(v.clientSecret ? {} : { clientSecret: undefined }) }, { quiet: true });
      setEditing(undefined);
      void list.refetch();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };
  const remove = (p: OidcProvider) =>
    confirmDialog({
      title: t('identity.oidc.deleteConfirm'),
      okButtonProps: { danger: true },
      onOk: async () => {
        try {
          await deleteOidcProvider({ id: p.id }, { quiet: true });
          void list.refetch();
        } catch (err) {
          toastError(errorMessage(err));
        }
      },
    });

  return (
    <>
      <Button type="primary" onClick={() => open()} data-testid="oidc-add" style={{ marginBottom: 12 }}>
        {t('identity.oidc.add')}
      </Button>
      <Table<OidcProvider>
        rowKey="id"
        loading={list.isLoading}
        dataSource={list.data ?? []}
        pagination={false}
        columns={[
          { title: t('identity.oidc.name'), dataIndex: 'name' },
          { title: t('identity.oidc.issuer'), dataIndex: 'issuer' },
          { title: t('identity.oidc.clientId'), dataIndex: 'clientId' },
          { title: t('identity.oidc.enabled'), dataIndex: 'enabled', render: (e: boolean) => (e ? <Tag color="green">✓</Tag> : <Tag>–</Tag>) },
          {
            key: 'actions',
            render: (_: unknown, p) => (
              <Space>
                <Button size="small" onClick={() => open(p)}>{t('identity.oidc.edit')}</Button>
                <Button size="small" danger onClick={() => remove(p)}>×</Button>
              </Space>
            ),
          },
        ]}
      />
      <Modal width={760} open={editing !== undefined} title={t(editing?.id ? 'identity.oidc.edit' : 'identity.oidc.add')} onOk={() => void save()} onCancel={() => setEditing(undefined)} destroyOnHidden>
        {editing?.redirectUri && <Alert style={{ marginBottom: 12 }} type="info" message={`${t('identity.oidc.redirectUri')}: ${editing.redirectUri}`} />}
        <Form form={form} layout="vertical" data-testid="oidc-form">
          <Form.Item name="name" label={t('identity.oidc.name')} rules={[{ required: true, max: 64 }]}><Input /></Form.Item>
          <Form.Item name="issuer" label={t('identity.oidc.issuer')} rules={[{ required: true, type: 'url' }]}><Input /></Form.Item>
          <Form.Item name="clientId" label={t('identity.oidc.clientId')} rules={[{ required: true }]}><Input /></Form.Item>
          <Form.Item name="clientSecret" label={t('identity.oidc.clientSecret')} extra={editing?.hasSecret ? t('identity.oidc.secretKept') : undefined}>
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Form.Item name="scopes" label={t('identity.oidc.scopes')}><Input /></Form.Item>
          <Form.Item name={['claims', 'userName']} label={t('identity.oidc.claimUserName')}><Input placeholder="preferred_username" /></Form.Item>
          <Form.Item name={['claims', 'realName']} label={t('identity.oidc.claimRealName')}><Input placeholder="name" /></Form.Item>
          <Form.Item name={['claims', 'email']} label={t('identity.oidc.claimEmail')}><Input placeholder="email" /></Form.Item>
          <Form.Item name={['claims', 'department']} label={t('identity.oidc.claimDepartment')}><Input placeholder="department" /></Form.Item>
          <Form.Item name={['claims', 'groups']} label={t('identity.oidc.claimGroups')}><Input placeholder="groups" /></Form.Item>
          <Form.Item name={['claims', 'adminGroup']} label={t('identity.oidc.adminGroup')}><Input /></Form.Item>
          <Form.Item name="enabled" label={t('identity.oidc.enabled')} valuePropName="checked"><Switch /></Form.Item>
          <GroupMappingFields directoryHint={t('identity.mapping.claimHint')} />
        </Form>
      </Modal>
    </>
  );
}

function LdapTab() {
  const { t } = useTranslation();
  const [form] = Form.useForm<LdapConfigInput>();
  const config = useQuery({
    queryKey: getGetLdapConfigQueryKey(),
    queryFn: async ({ signal }) => {
      const c = (await getLdapConfig({ signal, quiet: true })).data ?? null;
      form.setFieldsValue(c ? { ...c, bindPassword: undefined } : { enabled: true, userFilter: '(objectClass=inetOrgPerson)', syncMinutes: 0, groupMapping: { mirror: false, map: [] } });
      return c;
    },
  });
  const reports = useQuery({ queryKey: getListLdapSyncReportsQueryKey({ limit: 20 }), queryFn: async ({ signal }) => (await listLdapSyncReports({ limit: 20 }, { signal, quiet: true })).data ?? [] });
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>();
  const [keyword, setKeyword] = useState('');
  const [preview, setPreview] = useState<LdapEntry[] | undefined>();

  const values = () => {
    const v = form.getFieldsValue();
    return { ...v, ...(v.bindPassword ? {} : { bindPassword: undefined }) };
  };
  const run = async (fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      toastError(errorMessage(err));
    }
  };
  const save = () => run(async () => {
    await form.validateFields();
    await saveLdapConfig(values(), { quiet: true });
    toastSuccess(t('identity.saved'));
    void config.refetch();
  });
  const test = () => run(async () => {
    const r = (await testLdapConnection(values(), { quiet: true })).data;
    setResult(r?.ok ? { ok: true, text: t('identity.ldap.testOk', { count: r.users ?? 0 }) } : { ok: false, text: t('identity.ldap.testFailed', { message: r?.message ?? '' }) });
  });
  const search = () => run(async () => setPreview((await previewLdapUsers(keyword ? { keyword } : {}, { quiet: true })).data ?? []));
  const sync = () => run(async () => {
    await syncLdapNow({ quiet: true });
    toastSuccess(t('identity.ldap.syncQueued'));
    void reports.refetch();
  });

  return (
    <>
      <Form form={form} layout="vertical" style={{ maxWidth: 640 }} data-testid="ldap-form" disabled={config.isLoading}>
        <Form.Item name="enabled" label={t('identity.ldap.enabled')} valuePropName="checked"><Switch /></Form.Item>
        <Form.Item name="url" label={t('identity.ldap.url')} rules={[{ required: true, pattern: /^ldaps?:\/\// }]}><Input placeholder="ldaps://ldap.example.com" /></Form.Item>
        <Form.Item name="startTls" label={t('identity.ldap.startTls')} valuePropName="checked"><Switch /></Form.Item>
        <Form.Item name="bindDn" label={t('identity.ldap.bindDn')}><Input /></Form.Item>
        <Form.Item name="bindPassword" label={t('identity.ldap.bindPassword')} extra={config.data?.hasBindPassword ? t('identity.ldap.passwordKept') : undefined}>
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item name="userBaseDn" label={t('identity.ldap.userBaseDn')} rules={[{ required: true }]}><Input /></Form.Item>
        <Form.Item name="userFilter" label={t('identity.ldap.userFilter')}><Input /></Form.Item>
        <Form.Item name="groupBaseDn" label={t('identity.ldap.groupBaseDn')} extra={t('identity.ldap.groupBaseDnHelp')}><Input placeholder="ou=groups,dc=example,dc=com" /></Form.Item>
        <Form.Item name={['attributes', 'userName']} label={t('identity.ldap.attrUserName')}><Input placeholder="uid" /></Form.Item>
        <Form.Item name={['attributes', 'realName']} label={t('identity.ldap.attrRealName')}><Input placeholder="cn" /></Form.Item>
        <Form.Item name={['attributes', 'email']} label={t('identity.ldap.attrEmail')}><Input placeholder="mail" /></Form.Item>
        <Form.Item name="adminGroup" label={t('identity.ldap.adminGroup')}><Input /></Form.Item>
        <Form.Item name="syncMinutes" label={t('identity.ldap.syncMinutes')}><InputNumber min={0} max={10080} /></Form.Item>
        <GroupMappingFields directoryHint="cn=staff,ou=groups,dc=example,dc=com" />
        <Space wrap>
          <Button type="primary" onClick={() => void save()} data-testid="ldap-save">{t('identity.ldap.save')}</Button>
          <Button onClick={() => void test()} data-testid="ldap-test">{t('identity.ldap.test')}</Button>
          <Button onClick={() => void sync()} disabled={!config.data} data-testid="ldap-sync">{t('identity.ldap.sync')}</Button>
        </Space>
      </Form>
      {result && <Alert style={{ marginTop: 12 }} type={result.ok ? 'success' : 'error'} message={result.text} data-testid="ldap-test-result" />}

      <Typography.Title level={5} style={{ marginTop: 24 }}>{t('identity.ldap.preview')}</Typography.Title>
      <Space style={{ marginBottom: 12 }}>
        <Input placeholder={t('identity.ldap.keyword')} value={keyword} onChange={(e) => setKeyword(e.target.value)} onPressEnter={() => void search()} />
        <Button onClick={() => void search()} disabled={!config.data}>{t('identity.ldap.preview')}</Button>
      </Space>
      {preview && (
        <Table<LdapEntry>
          rowKey="dn"
          size="small"
          dataSource={preview}
          pagination={false}
          columns={[
            { title: t('identity.ldap.attrUserName'), dataIndex: 'userName' },
            { title: t('identity.ldap.attrRealName'), dataIndex: 'realName' },
            { title: t('identity.ldap.attrEmail'), dataIndex: 'email' },
            { title: t('identity.ldap.department'), dataIndex: 'department', render: (d: string[]) => d.join(' / ') },
            { title: t('identity.ldap.dn'), dataIndex: 'dn' },
          ]}
        />
      )}

      <Typography.Title level={5} style={{ marginTop: 24 }}>{t('identity.ldap.reports')}</Typography.Title>
      <Table<SyncReport>
        rowKey="id"
        size="small"
        loading={reports.isLoading}
        dataSource={reports.data ?? []}
        pagination={false}
        data-testid="ldap-reports"
        columns={[
          { title: t('identity.report.createdAt'), dataIndex: 'createdAt', render: (v: number) => formatDate(v) },
          { title: t('identity.report.trigger'), dataIndex: 'trigger', render: (v: string) => t(`identity.report.triggers.${v}`) },
          { title: t('identity.report.status'), dataIndex: 'status', render: (v: string) => t(`identity.report.statuses.${v}`) },
          { title: t('identity.report.added'), dataIndex: 'added' },
          { title: t('identity.report.updated'), dataIndex: 'updated' },
          { title: t('identity.report.disabled'), dataIndex: 'disabled' },
          { title: t('identity.report.reenabled'), dataIndex: 'reenabled' },
          { title: t('identity.report.groupsAdded'), dataIndex: 'groupsAdded' },
          { title: t('identity.report.membersAdded'), dataIndex: 'membersAdded' },
          { title: t('identity.report.membersRemoved'), dataIndex: 'membersRemoved' },
          { title: t('identity.report.errors'), dataIndex: 'errors', render: (e: string[]) => (e.length ? <Typography.Text type="danger">{e.join('; ')}</Typography.Text> : '0') },
        ]}
      />
    </>
  );
}

function SettingsTab() {
  const { t } = useTranslation();
  const settings = useQuery({ queryKey: getGetIdentitySettingsQueryKey(), queryFn: async ({ signal }) => (await getIdentitySettings({ signal, quiet: true })).data });
  const change = async (localLogin: 'all' | 'admins') => {
    try {
      await saveIdentitySettings({ localLogin }, { quiet: true });
      void settings.refetch();
      toastSuccess(t('identity.saved'));
    } catch (err) {
      toastError(errorMessage(err));
    }
  };
  return (
    <Form layout="vertical">
      <Form.Item label={t('identity.localLogin')}>
        <Radio.Group value={settings.data?.localLogin} onChange={(e) => void change(e.target.value)} data-testid="identity-local-login">
          <Radio value="all">{t('identity.localLoginAll')}</Radio>
          <Radio value="admins">{t('identity.localLoginAdmins')}</Radio>
        </Radio.Group>
      </Form.Item>
    </Form>
  );
}

export default function IntegrationPlatformPage() {
  const { t } = useTranslation();
  return (
    <div data-testid="integration-platform-page">
      <Typography.Title level={4}>{t('routes.integrationPlatform')}</Typography.Title>
      <Tabs
        items={[
          { key: 'oidc', label: t('identity.tabs.oidc'), children: <OidcTab /> },
          { key: 'ldap', label: t('identity.tabs.ldap'), children: <LdapTab /> },
          { key: 'settings', label: t('identity.tabs.settings'), children: <SettingsTab /> },
        ]}
      />
    </div>
  );
}
