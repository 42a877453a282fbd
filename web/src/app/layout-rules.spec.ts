import { describe, expect, it } from 'vitest';
import { showHeader, showLeftMenu } from './layout-rules.ts';

describe('header visibility', () => {
  it.each(['/fileDownload', '/fileDownload?link=abc', '/userServiceAgreement', '/privacyPolicy', '/userServiceAgreementEn', '/privacyPolicyEn'])(
    'hidden on %s',
    (p) => expect(showHeader(p)).toBe(false),
  );
  it.each(['/personalFile', '/home', '/groupFile', '/roleManage', '/error/500'])('shown on %s', (p) => expect(showHeader(p)).toBe(true));
});

describe('left menu visibility', () => {
  it('always on /personalFile, even before a library is chosen', () => {
    expect(showLeftMenu('/personalFile', null)).toBe(true);
    expect(showLeftMenu('/personalFile/', null)).toBe(true);
  });
  it('needs a business-library menu mode elsewhere', () => {
    expect(showLeftMenu('/groupFile', null)).toBe(false);
    expect(showLeftMenu('/groupFile', 'NetDisk')).toBe(true);
    expect(showLeftMenu('/roleManage', 'SysConfig')).toBe(true);
  });
  it.each(['/home', '/fileDownload', '/userServiceAgreement', '/privacyPolicy'])('never on %s', (p) =>
    expect(showLeftMenu(p, 'NetDisk')).toBe(false),
  );
});
