// Signed-in routes: no local user -> /login with the current location as redirect. The server is asked who is
// signed in on entry, which also enforces the disabled/expired rules (spec 4/6) through the HTTP hooks.
import { useEffect, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { useGetCurrentUser } from '../api/gen/session/session.ts';
import { HcsError } from '../api/hcs-error.ts';
import { handleHttpError } from './http-hooks.ts';
import { getUserInfo, setUserInfo, userInfoFromServer, useUserInfo } from '../shared/session.ts';

/** Account states the server may still report as a normal user (spec 3: userExpiredTime 1 = never expires). */
export function accountProblem(u: { userIsEnabled: number; userExpiredTime: number }, now = Date.now()): 'frozen' | 'expired' | null {
  if (u.userIsEnabled === 0) return 'frozen';
  if (u.userExpiredTime !== 1 && u.userExpiredTime > 0 && u.userExpiredTime < now) return 'expired';
  return null;
}

export function RequireSession({ children }: { children: ReactNode }) {
  const user = useUserInfo();
  const location = useLocation();
  const current = useGetCurrentUser({ query: { enabled: user != null, staleTime: 60_000 } });
  const data = current.data?.data;

  useEffect(() => {
    if (!data) return;
    const problem = accountProblem(data);
    if (problem === 'frozen') handleHttpError(new HcsError(403, 1, 'accountFrozen', 'ACCOUNT_FROZEN'));
    else if (problem === 'expired') handleHttpError(new HcsError(403, 1, 'login.userValid', 'ACCOUNT_EXPIRED'));
    else {
      const prev = getUserInfo();
      const next = userInfoFromServer(data, prev);
      if (JSON.stringify(next) !== JSON.stringify(prev)) setUserInfo(next);
    }
  }, [data]);

  if (!user) {
    const redirect = `${location.pathname}${location.search}`;
    return <Navigate to={`/login?redirect=${encodeURIComponent(redirect)}`} replace />;
  }
  return <>{children}</>;
}
