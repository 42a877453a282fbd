import { describe, expect, it } from 'vitest';
import { fromDataTransfer, fromFileList } from './pick-files.ts';

function fileEntry(name: string, size = 1): FileSystemFileEntry {
  const f = new File([new Uint8Array(size)], name);
  return { isFile: true, isDirectory: false, name, file: (ok: (f: File) => void) => ok(f) } as unknown as FileSystemFileEntry;
}
function dirEntry(name: string, children: FileSystemEntry[]): FileSystemDirectoryEntry {
  return {
    isFile: false,
    isDirectory: true,
    name,
    createReader() {
      // Two batches then the empty one, like Chromium's 100-entry batches.
      const batches = [children.slice(0, 1), children.slice(1), []];
      return { readEntries: (ok: (e: FileSystemEntry[]) => void) => ok(batches.shift() ?? []) };
    },
  } as unknown as FileSystemDirectoryEntry;
}

describe('fromDataTransfer', () => {
  it('walks dropped folders recursively, keeping empty folders and reading every batch', async () => {
    const tree = dirEntry('top', [fileEntry('a.txt'), dirEntry('sub', [fileEntry('b.txt'), dirEntry('empty', [])]), fileEntry('c.txt')]);
    const dt = { items: [{ kind: 'file', webkitGetAsEntry: () => tree, getAsFile: () => null }, { kind: 'file', webkitGetAsEntry: () => fileEntry('loose.bin') }], files: [] };
    const out = await fromDataTransfer(dt as unknown as DataTransfer);
    expect(out.files.map((f) => `${f.dir}|${f.file.name}`).sort()).toEqual(['top/sub|b.txt', 'top|a.txt', 'top|c.txt', '|loose.bin'].sort());
    expect(out.dirs).toEqual(['top', 'top/sub', 'top/sub/empty']);
  });
});

describe('fromFileList', () => {
  it('uses webkitRelativePath of a folder pick', () => {
    const f = new File(['x'], 'b.txt');
    Object.defineProperty(f, 'webkitRelativePath', { value: 'top/sub/b.txt' });
    const out = fromFileList([f, new File(['y'], 'c.txt')]);
    expect(out.files.map((x) => x.dir)).toEqual(['top/sub', '']);
    expect(out.dirs).toEqual(['top', 'top/sub']);
  });
});
