// The consoles are reachable by address: an account that is not an administrator is told so by the FORBIDDEN
// message instead of a screen of empty tables (the server refuses every call of these screens anyway).
import type { ReactNode } from 'react';
import { Empty } from 'antd';
import { codeMessage } from '../../shared/error-message.ts';
import { findRoute, mayEnter } from '../../shared/routes.ts';
import { useUserInfo } from '../../shared/session.ts';

export default function AdminOnly({ path, children }: { path: string; children: ReactNode }) {
  const me = useUserInfo();
  const def = findRoute(path);
  if (!def || !mayEnter(def, me)) return <Empty data-testid="admin-console-forbidden" description={codeMessage('FORBIDDEN')} />;
  return children;
}
