// Exit codes are part of the CLI's interface: scripts branch on them, so they never change meaning.
// cli/README.md documents the same table.
export const EXIT = {
  OK: 0,
  /** A bulk job finished but some files failed (each one is reported). */
  PARTIAL: 1,
  /** Bad flags, arguments or local paths: nothing was sent. */
  USAGE: 2,
  /** Not signed in, session ended, wrong credentials, account frozen or expired. */
  AUTH: 3,
  /** The server (or its storage) could not be reached, or answered 502/503/504. */
  UNREACHABLE: 4,
  /** The server refused the operation (not found, name exists, no space, internal error). */
  REFUSED: 5,
  /** Interrupted by Ctrl-C / SIGINT / SIGTERM; a bulk job saved its state and resumes on the next run. */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that ends the command with a given exit code and a one-line message for the user. */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  /** Stable machine code (the server's data.code when it came from the server). */
  readonly code: string;
  constructor(exitCode: ExitCode, message: string, code = 'CLI_ERROR') {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.code = code;
  }
}

export function usageError(message: string): CliError {
  return new CliError(EXIT.USAGE, message, 'USAGE');
}
