// What the change-password dialog's wrapper (PasswordDialog.tsx) and the dialog itself (PasswordModal.tsx) share.

export interface PasswordDialogProps {
  open: boolean;
  onClose: () => void;
  userId: string;
  userName: string;
  allowReset?: boolean;
  /** The account must change its password before anything else (a reset or new one): no way to dismiss it. */
  forced?: boolean;
}

export function strengthLevel(score: number): 'none' | 'weak' | 'medium' | 'strong' {
  if (score === 0) return 'none';
  if (score <= 1) return 'weak';
  if (score <= 3) return 'medium';
  return 'strong';
}
