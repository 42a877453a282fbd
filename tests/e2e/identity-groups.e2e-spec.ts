// Issue #19 in a real browser: on /integrationPlatform an administrator maps directory groups to drive groups for
// the LDAP connection (mirror the directory's groups, and map one directory group onto a drive group picked by name
// with a role), saves, and finds the mapping again after a reload; the server holds exactly what the screen showed.
// The screen is checked for raw keys and English in the Chinese UI.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { Page } from 'playwright-core';
import { chooseOption, explainFailure, signInAsAdmin, startE2E, visibleTextProblems, type E2E } from './harness.ts';
import { apiAs } from '../helpers/org.ts';

let e2e: E2E;
let admin: ReturnType<typeof apiAs>;
let projects: string;
let current: Page | undefined;

const GROUP_DN = 'cn=engineers,ou=groups,dc=example,dc=org';

beforeAll(async () => {
  e2e = await startE2E();
  const { token } = await e2e.server.login();
  admin = apiAs(e2e.server, token);
  const made = await admin('/hcs/controller/groupFile/newGroup', undefined, { groupName: '项目组' });
  expect(made.status, JSON.stringify(made)).toBe(200);
  projects = made.data.groupId;
}, 120_000);
afterAll(async () => {
  await e2e?.close();
});
beforeEach(() => onTestFailed(({ task }) => (current ? explainFailure(e2e, current, `identity-groups-${task.name}`) : undefined)));

describe('/integrationPlatform group mapping', () => {
  it('an administrator mirrors the directory groups and maps one onto a drive group with a role', async () => {
    const { page } = await e2e.newPage({ locale: 'zh-CN' });
    current = page;
    await signInAsAdmin(e2e, page);
    await page.goto(`${e2e.baseUrl}/drive/integrationPlatform`);
    await page.getByRole('tab', { name: 'LDAP / AD' }).click();
    const form = page.getByTestId('ldap-form');
    await form.getByLabel('服务器地址').fill('ldap://127.0.0.1:1');
    await form.getByLabel('用户基准 DN').fill('ou=people,dc=example,dc=org');
    await form.getByLabel('群组基准 DN').fill('ou=groups,dc=example,dc=org');
    await page.getByTestId('mapping-mirror').click();
    await page.getByTestId('mapping-add').click();
    const row = page.getByTestId('mapping-row');
    await row.locator('input').first().fill(GROUP_DN);
    await chooseOption(page, row.locator('.ant-select').nth(0), '项目组');
    await chooseOption(page, row.locator('.ant-select').nth(1), '群组负责人');
    expect(await visibleTextProblems(page, { lang: 'zh_CN', allow: ['LDAP / AD', 'DN', 'StartTLS', 'uid', 'sAMAccountName', 'cn', 'mail', 'ldaps://ldap.example.com', GROUP_DN, 'ou=groups,dc=example,dc=org', 'ou=people,dc=example,dc=org', 'cn=staff,ou=groups,dc=example,dc=com', 'ou=groups,dc=example,dc=com', 'ldap://127.0.0.1:1', '(objectClass=inetOrgPerson)'] })).toEqual([]);
    await page.getByTestId('ldap-save').click();

    await expect.poll(async () => (await admin('/hcs/controller/integrationPlatform/ldapConfig')).data?.groupMapping).toEqual({
      mirror: true, mirrorRole: 'groupdefaultrole', map: [{ directoryGroup: GROUP_DN, groupId: projects, roleCode: 'group_leader' }],
    });

    await page.reload();
    await page.getByRole('tab', { name: 'LDAP / AD' }).click();
    const again = page.getByTestId('mapping-row');
    await expect.poll(() => again.locator('input').first().inputValue()).toBe(GROUP_DN);
    await expect.poll(() => again.locator('.ant-select').nth(0).textContent()).toContain('项目组');
    expect(await again.locator('.ant-select').nth(1).textContent()).toContain('群组负责人');
    expect(await page.getByTestId('mapping-mirror').getAttribute('aria-checked')).toBe('true');
  }, 120_000);
});
