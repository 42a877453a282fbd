// sharp (libvips: about 21 MiB resident once loaded) loads with the first picture the server decodes, not at start:
// a node that never makes a thumbnail or a watermark never holds it (issue #12's RSS budget).
import type SharpModule from 'sharp';

let lib: Promise<typeof SharpModule> | undefined;

export const loadSharp = (): Promise<typeof SharpModule> => (lib ??= import('sharp').then((m) => m.default));
