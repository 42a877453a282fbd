import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browserLanguage, i18n, initI18n, loadLocale, resolveLanguage, LANGUAGE_KEY } from './i18n.ts';

beforeEach(() => localStorage.clear());

describe('language default (spec 9)', () => {
  it('the stored language wins', async () => {
    localStorage.setItem(LANGUAGE_KEY, 'en_US');
    const server = vi.fn(async () => 'zh_CN');
    expect(await resolveLanguage(server)).toBe('en_US');
    expect(server).not.toHaveBeenCalled();
  });

  it('then the browser language when it is zh-CN or en-US', () => {
    expect(browserLanguage(['en-US', 'zh-CN'])).toBe('en_US');
    expect(browserLanguage(['fr-FR', 'zh-CN'])).toBe('zh_CN');
    expect(browserLanguage(['fr-FR', 'en-GB'])).toBeUndefined();
  });

  it('then the server setting, and zh_CN when the server cannot say', async () => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['fr-FR']);
    expect(await resolveLanguage(async () => 'en_US')).toBe('en_US');
    expect(await resolveLanguage(async () => 'xx')).toBe('zh_CN');
    expect(
      await resolveLanguage(async () => {
        throw new Error('offline');
      }),
    ).toBe('zh_CN');
    vi.restoreAllMocks();
  });
});

describe('locale resources', () => {
  it('merges every area file of a language', async () => {
    const [en, zh] = await Promise.all([loadLocale('en_US'), loadLocale('zh_CN')]);
    expect((en.routes as Record<string, string>).personalFile).toBe('Personal File');
    expect((zh.login as Record<string, string>).userValid).toBeTruthy();
    expect(en.accountFrozen).toBeTruthy();
  });

  it('starts with the language in use only, and fetches the other when the app switches to it (issue #22 weight)', async () => {
    await initI18n('zh_CN');
    expect(i18n.hasResourceBundle('zh_CN', 'translation')).toBe(true);
    expect(i18n.hasResourceBundle('en_US', 'translation')).toBe(false);
    expect(i18n.t('routes.personalFile')).toBe('个人文件');
    await initI18n('en_US');
    expect(i18n.hasResourceBundle('en_US', 'translation')).toBe(true);
    expect(i18n.t('routes.personalFile')).toBe('Personal File');
  });
});
