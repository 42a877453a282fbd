// Header (spec 1): library switcher (with more than one library), transfer list with counters, client-tool
// download, language switch and the user menu. Both drop-downs open and close on click.
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Dropdown, Layout, Modal, Select, Space, Typography } from 'antd';
import {
  CloudDownloadOutlined,
  DownOutlined,
  GlobalOutlined,
  SwapOutlined,
  UserOutlined,
  ArrowUpOutlined,
  ArrowDownOutlined,
} from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useListBusinessLibs } from '../../api/gen/libraries/libraries.ts';
import { getToolName } from '../../api/gen/session/session.ts';
import type { BusinessLib, MenuItem } from '../../api/gen/model/index.ts';
import { LANGUAGES, type Language } from '../i18n.ts';
import { changeLanguage, signOut } from '../account.ts';
import { openLibrary } from '../libraries.ts';
import { useStore, useUserInfo } from '../session.ts';
import { openTransferPanel, useTransferCounts } from '../transfer-counters.ts';
import { toastError } from '../notify.ts';
import { PasswordDialog } from '../../features/account/PasswordDialog.tsx';

export function libLabel(lib: BusinessLib, lang: string): string {
  return lang === 'en_US' ? lib.libCode : lib.libName;
}

/** getToolName answers a path under /hcs/; anything else (another origin, a script URL) is refused. */
export function toolDownloadUrl(msg: string): string | null {
  const path = msg.trim().replace(/^\/+/, '');
  if (!path || path.includes('..') || path.includes('//') || /^[a-z][a-z0-9+.-]*:/i.test(path)) return null;
  return path.startsWith('hcs/') ? `/${path}` : `/hcs/${path}`;
}

function clientPlatform(): string {
  const ua = navigator.userAgent;
  if (/Mac OS X/.test(ua)) return 'mac';
  if (/Linux/.test(ua) && !/Android/.test(ua)) return 'linux';
  return 'windows';
}

export function AppHeader() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const user = useUserInfo();
  const { currentLib } = useStore();
  const counts = useTransferCounts();
  const libs = useListBusinessLibs();
  const [pwdOpen, setPwdOpen] = useState(false);
  const [langOpen, setLangOpen] = useState(false);
  const [userOpen, setUserOpen] = useState(false);
  const [info, setInfo] = useState<'feedback' | 'help' | null>(null);
  const lang = i18n.language;
  const libList = libs.data?.data ?? [];
  const menuTitle = (m: MenuItem) => (lang === 'en_US' ? m.menuName : m.menuStr) || m.menuName;

  const downloadTool = async () => {
    try {
      const res = await getToolName({ lang: lang as Language, type: clientPlatform() });
      const url = toolDownloadUrl(res.msg);
      if (!url) return toastError(t('layout.header.toolUnavailable'));
      window.open(url, '_blank', 'noopener');
    } catch {
      // The HTTP hooks have shown the server's message.
    }
  };

  const agreementPath = lang === 'en_US' ? '/drive/userServiceAgreementEn' : '/drive/userServiceAgreement';
  const userItems = [
    { key: 'myApplication', label: t('layout.userMenu.myApplication') },
    { key: 'changePassword', label: t('layout.userMenu.changePassword') },
    { key: 'agreement', label: t('layout.userMenu.userAgreement') },
    { key: 'feedback', label: t('layout.userMenu.feedback') },
    { key: 'help', label: t('layout.userMenu.help') },
    { type: 'divider' as const },
    { key: 'signOut', label: t('layout.userMenu.signOut'), danger: true },
  ];
  const onUserMenu = ({ key }: { key: string }) => {
    setUserOpen(false);
    if (key === 'myApplication') navigate('/home');
    else if (key === 'changePassword') setPwdOpen(true);
    else if (key === 'agreement') window.open(agreementPath, '_blank', 'noopener');
    else if (key === 'feedback' || key === 'help') setInfo(key);
    else if (key === 'signOut') void signOut();
  };

  return (
    <Layout.Header className="hcs-header" data-testid="app-header" style={{ display: 'flex', alignItems: 'center', gap: 16, paddingInline: 16 }}>
      <Typography.Link className="hcs-logo" onClick={() => navigate('/home')} style={{ fontSize: 18, fontWeight: 600, whiteSpace: 'nowrap' }}>
        {t('common.appName')}
      </Typography.Link>
      {libList.length > 1 && (
        <Select
          data-testid="lib-switcher"
          size="small"
          style={{ minWidth: 160 }}
          suffixIcon={<SwapOutlined />}
          value={currentLib ?? undefined}
          placeholder={t('layout.header.chooseLibrary')}
          options={libList.map((l) => ({ value: l.libCode, label: libLabel(l, lang) }))}
          onChange={(code: string) => void openLibrary(code, { queryClient, navigate, title: menuTitle }).catch(() => {})}
        />
      )}
      <div style={{ flex: 1 }} />
      <Space size="middle">
        <Button type="text" className="hcs-header-btn" onClick={() => openTransferPanel()} data-testid="transfer-list">
          {t('layout.header.transferList')}
          <Badge count={counts.upload} showZero size="small" title={t('layout.header.uploads')} data-testid="upload-count" color="#1677ff" style={{ marginInlineStart: 6 }}>
            <ArrowUpOutlined />
          </Badge>
          <Badge count={counts.download} showZero size="small" title={t('layout.header.downloads')} data-testid="download-count" color="#52c41a" style={{ marginInlineStart: 10 }}>
            <ArrowDownOutlined />
          </Badge>
        </Button>
        <Button type="text" className="hcs-header-btn" icon={<CloudDownloadOutlined />} onClick={() => void downloadTool()}>
          {t('layout.header.clientTool')}
        </Button>
        <Dropdown
          trigger={['click']}
          open={langOpen}
          onOpenChange={setLangOpen}
          menu={{
            selectedKeys: [lang],
            items: LANGUAGES.map((l) => ({ key: l, label: t(`common.languages.${l}`) })),
            onClick: ({ key }) => {
              setLangOpen(false);
              if (key !== lang) void changeLanguage(key as Language).catch(() => {});
            },
          }}
        >
          <Button type="text" className="hcs-header-btn" icon={<GlobalOutlined />} data-testid="language-switch">
            {t(`common.languages.${lang}`)} <DownOutlined />
          </Button>
        </Dropdown>
        <Dropdown trigger={['click']} open={userOpen} onOpenChange={setUserOpen} menu={{ items: userItems, onClick: onUserMenu }}>
          <Button type="text" className="hcs-header-btn" icon={<UserOutlined />} data-testid="user-menu">
            {user && user.userRealName && user.userRealName !== user.userName ? `${user.userRealName} (${user.userName})` : user?.userName} <DownOutlined />
          </Button>
        </Dropdown>
      </Space>
      {user && <PasswordDialog open={pwdOpen} onClose={() => setPwdOpen(false)} userId={user.userId} userName={user.userName} />}
      <Modal
        open={info != null}
        title={info ? t(`layout.userMenu.${info}`) : ''}
        onCancel={() => setInfo(null)}
        onOk={() => setInfo(null)}
        cancelButtonProps={{ style: { display: 'none' } }}
        okText={t('common.confirm')}
      >
        <Typography.Paragraph>{info ? t(`layout.info.${info}`) : ''}</Typography.Paragraph>
      </Modal>
    </Layout.Header>
  );
}
