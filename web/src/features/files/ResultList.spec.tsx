// The result list's count: exact totals read "N items"; a search the server stopped counting reads "more than".
import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { renderInProviders } from '../../test/render-app.tsx';
import { ResultList } from './ResultList.tsx';

const list = (totalExact: boolean | undefined, lang: 'en_US' | 'zh_CN' = 'en_US') =>
  renderInProviders(
    <MemoryRouter>
      <ResultList rows={[]} total={1000} totalExact={totalExact} pageNo={1} pageSize={20} onPage={() => {}} loading={false} error={null} onChanged={() => {}} emptyText="none" />
    </MemoryRouter>,
    lang,
  );

describe('ResultList total', () => {
  it('an exact total is the number of items', async () => {
    await list(true);
    expect(await screen.findByText('1000 items')).toBeTruthy();
  });

  it('a total the server stopped counting at reads "more than"', async () => {
    await list(false);
    expect(await screen.findByText('More than 1000 items: narrow the search')).toBeTruthy();
  });

  it('the same in zh_CN', async () => {
    await list(false, 'zh_CN');
    expect(await screen.findByText('超过 1000 条，请缩小搜索范围')).toBeTruthy();
  });
});
