// Entry point of the `drive` binary: builds the program and maps commander's own exits to ours.
import { CommanderError } from 'commander';
import { processIo } from './command-context.ts';
import { EXIT } from './exit-codes.ts';
import { buildProgram } from './program.ts';

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram(processIo);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; every parse error is a usage error (commander would use 1).
      return err.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    throw err;
  }
  return typeof process.exitCode === 'number' ? process.exitCode : EXIT.OK;
}

const code = await main(process.argv);
process.exitCode = code;
