// /myCollect (issue #16 item 2): the user's favourites, paged like the other lists; each opens in its own space.
// The server leaves out favourites of items the user can no longer reach.
import { useState } from 'react';
import { Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getPageFavouritesQueryKey, pageFavourites } from '../../api/gen/files/files.ts';
import { DEFAULT_PAGE_SIZE } from './list-state.ts';
import { ResultList } from './ResultList.tsx';

export default function FavouritesPage() {
  const { t } = useTranslation();
  const [page, setPage] = useState({ pageNo: 1, pageSize: DEFAULT_PAGE_SIZE });
  const query = useQuery({
    queryKey: getPageFavouritesQueryKey(page),
    queryFn: async ({ signal }) => (await pageFavourites(page, { signal, quiet: true })).data,
    placeholderData: keepPreviousData,
  });
  return (
    <div data-testid="favourites-page">
      <Typography.Title level={4}>{t('routes.myCollect')}</Typography.Title>
      <ResultList
        rows={query.data?.list}
        total={query.data?.total ?? 0}
        pageNo={page.pageNo}
        pageSize={page.pageSize}
        onPage={(pageNo, pageSize) => setPage(pageSize !== page.pageSize ? { pageNo: 1, pageSize } : { pageNo, pageSize })}
        loading={query.isFetching}
        error={query.error}
        onChanged={() => void query.refetch()}
        emptyText={t('favourites.empty')}
      />
    </div>
  );
}
