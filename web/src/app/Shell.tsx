// Root element: browser-level session wiring (snapshot on unload, sign-out from another tab) for every route.
import { useEffect } from 'react';
import { Outlet } from 'react-router-dom';
import { installSessionListeners } from '../shared/session.ts';
import { hardNav, loginUrl } from '../shared/navigation.ts';

export function Shell() {
  useEffect(() => installSessionListeners(() => hardNav.assign(loginUrl())), []);
  return <Outlet />;
}
