// Menu/route icon names (ours and the server's menuIcon values) to antd icons; unknown names get a neutral icon.
import type { ReactNode } from 'react';
import {
  ApartmentOutlined,
  AppstoreOutlined,
  ClusterOutlined,
  DeleteOutlined,
  FileOutlined,
  HomeOutlined,
  LinkOutlined,
  SearchOutlined,
  SettingOutlined,
  ShareAltOutlined,
  StarOutlined,
  SyncOutlined,
  TableOutlined,
  TagsOutlined,
  TeamOutlined,
  UserOutlined,
  DatabaseOutlined,
  CloudOutlined,
  SafetyOutlined,
  FileTextOutlined,
} from '@ant-design/icons';

const ICONS: Record<string, ReactNode> = {
  home: <HomeOutlined />,
  user: <UserOutlined />,
  team: <TeamOutlined />,
  share: <ShareAltOutlined />,
  link: <LinkOutlined />,
  cluster: <ClusterOutlined />,
  star: <StarOutlined />,
  delete: <DeleteOutlined />,
  apartment: <ApartmentOutlined />,
  sync: <SyncOutlined />,
  tags: <TagsOutlined />,
  search: <SearchOutlined />,
  file: <FileOutlined />,
  table: <TableOutlined />,
  setting: <SettingOutlined />,
  database: <DatabaseOutlined />,
  cloud: <CloudOutlined />,
  safety: <SafetyOutlined />,
  log: <FileTextOutlined />,
};

export function iconFor(name: string | undefined): ReactNode {
  return (name && ICONS[name]) || <AppstoreOutlined />;
}
