// What the five library screens (issue #18) share: the libraries administrators see, the library a screen is about
// (?libCode=, so a screen can be linked to and reloaded), the picker that changes it, and the links between them.
import './strings.ts';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { Empty, Select, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  getAllBusinessLibs, getBusinessLibStats, getGetAllBusinessLibsQueryKey, getGetBusinessLibStatsQueryKey, getListClassifiersQueryKey, listClassifiers,
} from '../../api/gen/business-libs/business-libs.ts';
import { getListBusinessLibsQueryKey } from '../../api/gen/libraries/libraries.ts';
import type { BusinessLibAdmin, Classifier, Feature, LibStats } from '../../api/gen/model/index.ts';

export const FEATURES: readonly Feature[] = ['upload', 'download', 'share', 'preview', 'versions'];
export const LIB_ICONS = ['appstore', 'folder', 'file-text', 'database', 'team', 'safety'] as const;

export function useAllLibs() {
  return useQuery({ queryKey: getGetAllBusinessLibsQueryKey(), queryFn: async ({ signal }) => (await getAllBusinessLibs({ signal, quiet: true })).data ?? [] });
}

export function useStats(libCode?: string) {
  const params = libCode ? { libCode } : undefined;
  return useQuery({
    queryKey: getGetBusinessLibStatsQueryKey(params),
    queryFn: async ({ signal }) => (await getBusinessLibStats(params, { signal, quiet: true })).data ?? [],
    enabled: libCode === undefined || libCode !== '',
  });
}

export function useClassifiers(libCode: string) {
  return useQuery({
    queryKey: getListClassifiersQueryKey({ libCode }),
    enabled: libCode !== '',
    queryFn: async ({ signal }) => (await listClassifiers({ libCode }, { signal, quiet: true })).data ?? [],
  });
}

/** After a change: every screen's view of the libraries, and the home strip and header switcher, read again. */
export function useRefreshLibs() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: getGetAllBusinessLibsQueryKey() }),
      queryClient.invalidateQueries({ queryKey: [getGetBusinessLibStatsQueryKey()[0]] }),
      queryClient.invalidateQueries({ queryKey: [getListClassifiersQueryKey()[0]] }),
      queryClient.invalidateQueries({ queryKey: getListBusinessLibsQueryKey().slice(0, 1) }),
    ]);
}

export function useLibName() {
  const { i18n } = useTranslation();
  const en = i18n.language === 'en_US';
  return {
    en,
    lib: (l: Pick<BusinessLibAdmin, 'libCode' | 'libName' | 'libNameEn'>) => (en ? l.libNameEn || l.libCode : l.libName),
    classifier: (c: Pick<Classifier, 'classifierName' | 'classifierNameEn'>) => (en ? c.classifierNameEn : c.classifierName),
  };
}

/**
 * The library the screen shows: ?libCode= when it names one of `choices`, else the first of them (written back to
 * the address, so a reload or a shared link opens the same library).
 */
export function useChosenLib(choices: readonly BusinessLibAdmin[] | undefined): [BusinessLibAdmin | undefined, (libCode: string) => void] {
  const [params, setParams] = useSearchParams();
  const asked = params.get('libCode');
  const chosen = choices?.find((l) => l.libCode === asked) ?? choices?.[0];
  const set = (libCode: string) => setParams((p) => {
    const next = new URLSearchParams(p);
    next.set('libCode', libCode);
    return next;
  }, { replace: true });
  useEffect(() => {
    if (chosen && asked !== chosen.libCode) set(chosen.libCode);
    // set is a new function each render; the address only follows the chosen library.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [chosen?.libCode, asked]);
  return [chosen, set];
}

export function LibPicker({ libs, value, onChange }: { libs: readonly BusinessLibAdmin[]; value: string | undefined; onChange: (libCode: string) => void }) {
  const { t } = useTranslation();
  const name = useLibName();
  return (
    <Space>
      <span>{t('bizscreens.library')}</span>
      <Select
        style={{ minWidth: 220 }}
        value={value}
        placeholder={t('bizscreens.chooseLibrary')}
        onChange={onChange}
        options={libs.map((l) => ({ value: l.libCode, label: `${name.lib(l)} (${l.libCode})` }))}
        data-testid="lib-picker"
      />
    </Space>
  );
}

export const NoLibrary = () => {
  const { t } = useTranslation();
  return <Empty description={t('bizscreens.noCustomLibrary')} data-testid="no-library" />;
};

/** The other screens of one library. */
export function ScreenLinks({ libCode, except }: { libCode: string; except?: string }) {
  const { t } = useTranslation();
  const q = `?libCode=${encodeURIComponent(libCode)}`;
  const links = [
    ['/businessDetail', 'bizscreens.detail', 'detail'],
    ['/businessLevelProperty', 'bizscreens.levels', 'levels'],
    ['/businessLibraryProperty', 'bizscreens.properties', 'properties'],
    ['/businessConfig', 'bizscreens.config', 'config'],
    ['/businessLibrary', 'bizscreens.open', 'open'],
  ] as const;
  return (
    <Space size="middle" wrap>
      {links
        .filter(([path]) => path !== except)
        .map(([path, key, id]) => (
          <Link key={path} to={`${path}${q}`} data-testid={`link-${id}-${libCode}`}>
            {t(key)}
          </Link>
        ))}
    </Space>
  );
}

export const statsOf = (stats: readonly LibStats[] | undefined, libCode: string | undefined) => stats?.find((s) => s.libCode === libCode);
