import { useTranslation } from 'react-i18next';

/** A role's name in the user's language (the server keeps both; the English one falls back to the code). */
export function useRoleName(): (r: { roleName: string; roleNameEn: string; roleCode: string }) => string {
  const { i18n } = useTranslation();
  const en = i18n.language === 'en_US';
  return (r) => (en ? r.roleNameEn || r.roleCode : r.roleName || r.roleCode);
}
