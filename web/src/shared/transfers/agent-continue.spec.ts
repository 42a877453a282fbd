// What the lost agent's upload becomes in the browser: the parts the agent stored are reused only for the same single
// file (name and size; the engine then matches the content), sent in parts, with some of them already sent.
import { describe, expect, it } from 'vitest';
import type { AgentJob } from './agent-client.ts';
import { mayResume, uploadContinuation } from './agent-continue.ts';

const MiB = 1024 * 1024;
const job = (over: Partial<AgentJob> = {}): AgentJob => ({
  id: 'u1',
  kind: 'upload',
  name: 'big.bin',
  state: 'running',
  target: '/',
  createdAt: 1,
  files: 1,
  done: 0,
  failed: 0,
  bytes: 600 * MiB,
  bytesDone: 24 * MiB,
  speed: 0,
  failures: [],
  parentId: 'p1',
  ...over,
});

describe('continuing a lost agent upload in the browser', () => {
  it('reuses the stored parts for the same file picked again', () => {
    expect(mayResume(job())).toBe(true);
    expect(uploadContinuation(job(), [{ name: 'big.bin', size: 600 * MiB }])).toBe('resume');
  });

  it('uploads afresh another file, several files, or a job whose parts cannot be on the server', () => {
    expect(uploadContinuation(job(), [{ name: 'other.bin', size: 600 * MiB }])).toBe('afresh');
    expect(uploadContinuation(job(), [{ name: 'big.bin', size: 600 * MiB - 1 }])).toBe('afresh');
    expect(uploadContinuation(job(), [{ name: 'big.bin', size: 600 * MiB }, { name: 'b', size: 1 }])).toBe('afresh');
    // Nothing sent yet, a folder or several files, or one below the part size (a single PUT keeps no parts).
    for (const j of [job({ bytesDone: 0 }), job({ files: 3, name: 'tree' }), job({ bytes: 4 * MiB, bytesDone: 1 })]) {
      expect(mayResume(j)).toBe(false);
      expect(uploadContinuation(j, [{ name: j.name, size: j.bytes }])).toBe('afresh');
    }
  });

  it('rebuilds the tree of a lost folder upload when the folder is picked again; several loose files stay flat', () => {
    const tree = job({ name: 'tree', files: 3, folder: true });
    const picked = [
      { name: 'a.txt', size: 3, webkitRelativePath: 'tree/a.txt' },
      { name: 'big.bin', size: 600 * MiB, webkitRelativePath: 'tree/sub/big.bin' },
    ];
    expect(uploadContinuation(tree, picked)).toBe('tree');
    // Loose files picked for it carry no folder to rebuild.
    expect(uploadContinuation(tree, [{ name: 'a.txt', size: 3, webkitRelativePath: '' }])).toBe('afresh');
    // A multi-file job keeps going flat into its folder, whatever is picked.
    expect(uploadContinuation(job({ name: 'a.txt (+1)', files: 2 }), picked)).toBe('afresh');
  });
});
