// The native file picker the agent opens when the web asks it to choose what to upload: zenity or kdialog on
// Linux, osascript on macOS, PowerShell on Windows. What the user picks there is what gets uploaded, so the web
// page never names a local path itself. The picker runs as a child process without a shell; its output is one
// path per line.
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { ProtocolError, RESULT } from './protocol.ts';

export type PickerName = 'zenity' | 'kdialog' | 'osascript' | 'powershell';
export type PickKind = 'files' | 'folder';

export const PICKERS: readonly PickerName[] = ['zenity', 'kdialog', 'osascript', 'powershell'];

const OSASCRIPT_FILES = `set picked to choose file with prompt "Upload to the drive" with multiple selections allowed
set out to ""
repeat with f in picked
set out to out & POSIX path of f & linefeed
end repeat
return out`;
const OSASCRIPT_FOLDER = 'POSIX path of (choose folder with prompt "Upload to the drive")';
const PS_FILES = `Add-Type -AssemblyName System.Windows.Forms
$d = New-Object System.Windows.Forms.OpenFileDialog
$d.Multiselect = $true
if ($d.ShowDialog() -eq 'OK') { $d.FileNames -join [Environment]::NewLine }`;
const PS_FOLDER = `Add-Type -AssemblyName System.Windows.Forms
$d = New-Object System.Windows.Forms.FolderBrowserDialog
if ($d.ShowDialog() -eq 'OK') { $d.SelectedPath }`;

/** The program and arguments that open the picker. */
export function pickerCommand(name: PickerName, kind: PickKind): { file: string; args: string[] } {
  switch (name) {
    case 'zenity':
      return { file: 'zenity', args: kind === 'folder' ? ['--file-selection', '--directory'] : ['--file-selection', '--multiple', '--separator=\n'] };
    case 'kdialog':
      return { file: 'kdialog', args: kind === 'folder' ? ['--getexistingdirectory'] : ['--getopenfilename', '--multiple', '--separate-output'] };
    case 'osascript':
      return { file: 'osascript', args: ['-e', kind === 'folder' ? OSASCRIPT_FOLDER : OSASCRIPT_FILES] };
    case 'powershell':
      return { file: 'powershell.exe', args: ['-NoProfile', '-STA', '-Command', kind === 'folder' ? PS_FOLDER : PS_FILES] };
  }
}

async function onPath(file: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      await access(join(dir, file), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

/** The picker to use: the configured one, or the platform's first one found on PATH; null when there is none. */
export async function detectPicker(setting: string | undefined, env: NodeJS.ProcessEnv = process.env, platform = process.platform): Promise<PickerName | null> {
  if (setting === 'none') return null;
  if (setting && setting !== 'auto') {
    if (!(PICKERS as readonly string[]).includes(setting)) throw new Error(`unknown picker "${setting}" (use auto, none, ${PICKERS.join(', ')})`);
    return setting as PickerName;
  }
  if (platform === 'darwin') return 'osascript';
  if (platform === 'win32') return 'powershell';
  // A desktop session is needed to show a window at all.
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return null;
  for (const p of ['zenity', 'kdialog'] as const) if (await onPath(p, env)) return p;
  return null;
}

/** Opens the picker and returns the absolute paths chosen; PICKER (CANCELLED) when the user closes it. */
export function pick(name: PickerName, kind: PickKind, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const { file, args } = pickerCommand(name, kind);
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, maxBuffer: 4 * 1024 * 1024, windowsHide: false }, (err, stdout) => {
      // Not trimmed: "/a/b " names another file than "/a/b".
      const paths = String(stdout)
        .split(/\r?\n/)
        .filter((l) => l !== '');
      // zenity and kdialog exit 1 on cancel, osascript with "User canceled" (-128); PowerShell prints nothing.
      if (err || paths.length === 0) {
        reject(new ProtocolError(RESULT.PICKER, 'CANCELLED', 'nothing was chosen'));
        return;
      }
      if (!paths.every((p) => isAbsolute(p))) {
        reject(new ProtocolError(RESULT.PICKER, 'PICKER_FAILED', 'the picker returned something that is not a path'));
        return;
      }
      resolve(paths);
    });
  });
}
