// Header (spec 1): library switcher (with more than one library), transfer list with counters, client-tool
// download, language switch and the user menu. Both drop-downs open and close on click.
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Dropdown, Grid, Layout, Modal, Space } from 'antd';
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
import { useClientToolUrl } from '../../shared/client-tool.ts';
import { TextLink } from '../../shared/Text.tsx';
import { NativeSelect } from '../../shared/NativeSelect.tsx';
import type { BusinessLib, MenuItem } from '../../api/gen/model/index.ts';
import { LANGUAGES, type Language } from '../../shared/i18n.ts';
import { changeLanguage, signOut } from '../../shared/account.ts';
import { openLibrary } from '../../shared/libraries.ts';
import { useStore, useUserInfo } from '../../shared/session.ts';
import { openTransferPanel, useTransferCounts } from '../../shared/transfer-counters.ts';
import { PasswordDialog } from '../../features/account/PasswordDialog.tsx';

export function libLabel(lib: BusinessLib, lang: string): string {
  return lang === 'en_US' ? lib.libCode : lib.libName;
}

export { toolDownloadUrl } from '../../shared/client-tool.ts';

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

  // Shown only when the server offers a tool: a button that cannot work is not shown at all.
  const toolUrl = useClientToolUrl();
  // Below 992 px the buttons keep their icons (and their names for screen readers) and the user menu only the user
  // name, so the user menu stays in view.
  const wide = Grid.useBreakpoint().lg !== false;

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
      <TextLink className="hcs-logo" onClick={() => navigate('/home')} style={{ fontSize: 18, fontWeight: 600, whiteSpace: 'nowrap' }}>
        {t('common.appName')}
      </TextLink>
      {libList.length > 1 && (
        // The browser's own select (shared/NativeSelect.tsx): antd's weighed 22 KB of JS gzip on every signed-in screen.
        <NativeSelect<string>
          data-testid="lib-switcher"
          size="small"
          style={{ minWidth: wide ? 160 : 110 }}
          suffix={<SwapOutlined />}
          value={currentLib ?? undefined}
          placeholder={t('layout.header.chooseLibrary')}
          aria-label={t('layout.header.chooseLibrary')}
          options={libList.map((l) => ({ value: l.libCode, label: libLabel(l, lang) }))}
          onChange={(code) => code && void openLibrary(code, { queryClient, navigate, title: menuTitle }).catch(() => {})}
        />
      )}
      <div style={{ flex: 1 }} />
      <Space size={wide ? 'middle' : 'small'}>
        <Button type="text" className="hcs-header-btn" onClick={() => openTransferPanel()} data-testid="transfer-list" aria-label={t('layout.header.transferList')}>
          {wide && t('layout.header.transferList')}
          {/* Arrow and count side by side: a badge over the arrow hid it, and the arrow took the badge's dark text. */}
          <span className="hcs-counter" title={t('layout.header.uploads')} style={{ marginInlineStart: 8 }}>
            <ArrowUpOutlined data-testid="upload-arrow" />
            <Badge count={counts.upload} showZero size="small" data-testid="upload-count" color="#1677ff" />
          </span>
          <span className="hcs-counter" title={t('layout.header.downloads')} style={{ marginInlineStart: 8 }}>
            <ArrowDownOutlined data-testid="download-arrow" />
            <Badge count={counts.download} showZero size="small" data-testid="download-count" color="#52c41a" />
          </span>
        </Button>
        {toolUrl && (
          <Button
            type="text"
            className="hcs-header-btn"
            icon={<CloudDownloadOutlined />}
            onClick={() => window.open(toolUrl, '_blank', 'noopener')}
            data-testid="client-tool"
            aria-label={t('layout.header.clientTool')}
            title={wide ? undefined : t('layout.header.clientTool')}
          >
            {wide && t('layout.header.clientTool')}
          </Button>
        )}
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
          <Button type="text" className="hcs-header-btn" icon={<GlobalOutlined />} data-testid="language-switch" aria-label={t(`common.languages.${lang}`)}>
            {wide && t(`common.languages.${lang}`)} <DownOutlined />
          </Button>
        </Dropdown>
        <Dropdown trigger={['click']} open={userOpen} onOpenChange={setUserOpen} menu={{ items: userItems, onClick: onUserMenu }}>
          <Button type="text" className="hcs-header-btn" icon={<UserOutlined />} data-testid="user-menu">
            {wide && user?.userRealName && user.userRealName !== user.userName ? `${user.userRealName} (${user.userName})` : user?.userName} <DownOutlined />
          </Button>
        </Dropdown>
      </Space>
      {user && (
        <PasswordDialog
          open={pwdOpen || user.mustChangePassword === true}
          forced={user.mustChangePassword === true}
          onClose={() => setPwdOpen(false)}
          userId={user.userId}
          userName={user.userName}
        />
      )}
      <Modal
        open={info != null}
        title={info ? t(`layout.userMenu.${info}`) : ''}
        onCancel={() => setInfo(null)}
        onOk={() => setInfo(null)}
        cancelButtonProps={{ style: { display: 'none' } }}
        okText={t('common.confirm')}
      >
        <p>{info ? t(`layout.info.${info}`) : ''}</p>
      </Modal>
    </Layout.Header>
  );
}
