// An account picker that searches as the user types (Users/group/users: names only, live accounts).
import { useState } from 'react';
import { Select } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { pickDeptUsers } from '../../api/gen/org/org.ts';

interface Option {
  value: string;
  label: string;
}

export function UserPicker({
  value,
  onChange,
  mode,
  known = [],
  exclude,
  testId = 'user-picker',
}: {
  value?: string | string[];
  onChange?: (v: string | string[]) => void;
  mode?: 'multiple';
  /** Labels of accounts already chosen (they may not be in the current search's answer). */
  known?: Option[];
  exclude?: string;
  testId?: string;
}) {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const q = useQuery({
    queryKey: ['org-user-picker', keyword],
    queryFn: async ({ signal }) => (await pickDeptUsers({ ...(keyword ? { keyword } : {}), limit: 50 }, { signal, quiet: true })).data ?? [],
  });
  const found: Option[] = (q.data ?? []).filter((u) => u.userId !== exclude).map((u) => ({ value: u.userId, label: `${u.realName || u.userName} (${u.userName})` }));
  const options = [...known.filter((k) => !found.some((f) => f.value === k.value)), ...found];
  return (
    <Select
      mode={mode}
      showSearch
      allowClear
      filterOption={false}
      onSearch={setKeyword}
      loading={q.isFetching}
      value={value}
      onChange={onChange}
      options={options}
      placeholder={t('org.user.pick')}
      notFoundContent={t('org.noMatch')}
      data-testid={testId}
      style={{ width: '100%' }}
    />
  );
}
