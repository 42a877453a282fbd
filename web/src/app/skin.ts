// The skin stylesheet is served by the server (/drive/static/skin/{skin}/skin.css). A missing skin is an error:
// it is logged and the default redblack loads instead, so the app never renders unstyled.
import { DEFAULT_SKIN } from '../shared/session.ts';

const LINK_ID = 'hcs-skin';

export function skinUrl(skin: string): string {
  return `/drive/static/skin/${encodeURIComponent(skin)}/skin.css`;
}

export function loadSkin(skin: string = DEFAULT_SKIN): Promise<string> {
  const name = /^[a-z0-9-]+$/.test(skin) ? skin : DEFAULT_SKIN;
  return new Promise((resolve) => {
    document.getElementById(LINK_ID)?.remove();
    const link = document.createElement('link');
    link.id = LINK_ID;
    link.rel = 'stylesheet';
    link.href = skinUrl(name);
    link.onload = () => resolve(name);
    link.onerror = () => {
      console.error(`skin "${name}" could not be loaded`);
      if (name === DEFAULT_SKIN) return resolve('');
      void loadSkin(DEFAULT_SKIN).then(resolve);
    };
    document.head.appendChild(link);
  });
}
