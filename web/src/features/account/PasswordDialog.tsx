// The change-password dialog as the header opens it. The dialog itself (PasswordModal.tsx: antd's Form, Checkbox,
// Progress, Alert) loads on first open rather than with every signed-in page (issue #22 weight,
// web/scripts/check-budget.ts).
import { lazyDialog } from '../../shared/lazy-dialog.tsx';
import type { PasswordDialogProps } from './password.ts';

export { strengthLevel } from './password.ts';

export const PasswordDialog = lazyDialog<PasswordDialogProps>(() => import('./PasswordModal.tsx').then((m) => m.default), (p) => p.open);
