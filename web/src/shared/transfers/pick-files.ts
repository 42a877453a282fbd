// Turns what the user picked or dropped into files with their folder-relative paths, so a folder upload can
// recreate its tree. Dropped folders are walked with the File and Directory Entries API (webkitGetAsEntry).

export interface PickedFile {
  file: File;
  /** Folder path inside the upload, without the file name: "" for a loose file, "photos/2024" for a nested one. */
  dir: string;
}

export interface PickResult {
  files: PickedFile[];
  /** Every folder in the selection (also empty ones), parent before child. */
  dirs: string[];
}

function splitPath(path: string): { dir: string } {
  const i = path.lastIndexOf('/');
  return { dir: i < 0 ? '' : path.slice(0, i) };
}

function addDirChain(dirs: Set<string>, dir: string): void {
  if (!dir) return;
  const parts = dir.split('/');
  for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
}

function sortDirs(dirs: Set<string>): string[] {
  return [...dirs].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/** Files from an <input type=file> (with webkitdirectory the browser fills webkitRelativePath). */
export function fromFileList(list: FileList | readonly File[]): PickResult {
  const files: PickedFile[] = [];
  const dirs = new Set<string>();
  for (const file of Array.from(list)) {
    const rel = file.webkitRelativePath || '';
    const { dir } = splitPath(rel);
    addDirChain(dirs, dir);
    files.push({ file, dir });
  }
  return { files, dirs: sortDirs(dirs) };
}

function readAllEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  // readEntries answers in batches (100 in Chromium); keep reading until an empty batch.
  return new Promise((resolve, reject) => {
    const out: FileSystemEntry[] = [];
    const next = () =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(out);
        else {
          out.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

const entryFile = (entry: FileSystemFileEntry): Promise<File> => new Promise((resolve, reject) => entry.file(resolve, reject));

/** Items of a drop: files and whole folders, walked recursively. */
export async function fromDataTransfer(dt: DataTransfer): Promise<PickResult> {
  const entries: FileSystemEntry[] = [];
  const loose: File[] = [];
  // Entries must be taken synchronously: the DataTransfer is emptied once the drop handler yields.
  for (const item of Array.from(dt.items ?? [])) {
    if (item.kind !== 'file') continue;
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (entry) entries.push(entry);
    else {
      const f = item.getAsFile();
      if (f) loose.push(f);
    }
  }
  if (entries.length === 0 && loose.length === 0 && dt.files) loose.push(...Array.from(dt.files));

  const dirs = new Set<string>();
  // Files without an entry (synthetic drops, older engines) may still carry their folder path.
  const files: PickedFile[] = loose.map((file) => {
    const { dir } = splitPath(file.webkitRelativePath || '');
    addDirChain(dirs, dir);
    return { file, dir };
  });
  const walk = async (entry: FileSystemEntry, dir: string): Promise<void> => {
    if (entry.isFile) {
      files.push({ file: await entryFile(entry as FileSystemFileEntry), dir });
    } else if (entry.isDirectory) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      dirs.add(path);
      for (const child of await readAllEntries((entry as FileSystemDirectoryEntry).createReader())) await walk(child, path);
    }
  };
  for (const e of entries) await walk(e, '');
  return { files, dirs: sortDirs(dirs) };
}
