import { describe, expect, it } from 'vitest';
import { rollbackArgv } from './versions.ts';

const argv = (...a: string[]) => ['node', 'drive', ...a];

describe('rollbackArgv', () => {
  it('hands --version after the rollback command to the command, and nothing else', () => {
    expect(rollbackArgv(argv('rollback', '/a.txt', '--version', '3'))).toEqual(argv('rollback', '/a.txt', '--to-version', '3'));
    expect(rollbackArgv(argv('--server', 'http://x', '--json', 'rollback', '/a.txt', '--version=2'))).toEqual(
      argv('--server', 'http://x', '--json', 'rollback', '/a.txt', '--to-version=2'),
    );
    expect(rollbackArgv(argv('--version'))).toEqual(argv('--version'));
    expect(rollbackArgv(argv('ls', 'rollback', '--version'))).toEqual(argv('ls', 'rollback', '--version'));
    expect(rollbackArgv(argv('rollback', '--', '--version'))).toEqual(argv('rollback', '--', '--version'));
  });
});
