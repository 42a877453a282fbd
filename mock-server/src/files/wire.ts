// The wire shapes of instances and download info (contract: files.yaml Instance, download.yaml DownloadFileInfo).
import type { Db } from '../db/sql/tx.ts';
import { ancestorsOf, type InstanceRow } from '../db/instances-repo.ts';
import type { ObjectStore } from '../storage/object-store.ts';
import { uriEncode } from '../storage/sigv4.ts';
import { AppError } from '../http/errors.ts';
import type { components } from '@hcs/openapi/schema';
import type { Permission } from '@hcs/openapi/operations';

type Schemas = components['schemas'];

export const DOWNLOAD_PART_SIZE = 8 * 1024 * 1024;

/** Names of the folders from below the library root down to `row`'s parent. */
export async function parentNamesOf(db: Db, row: InstanceRow): Promise<string[]> {
  return (await ancestorsOf(db, row.id)).filter((a) => a.parentId !== null).map((a) => a.name);
}

/**
 * `parentNames`: the names of the folders above the row, below the library root, or those names already joined
 * with '/' (a listing joins its folder's once for all its rows).
 * `allowed`: what the caller may do on the row (access-gate.ts decide); rows carry editIsDisabled (no `edit`) and
 * isDisabled (no `delete`) from it. Without it only a library root is marked (it is never renamed or deleted).
 */
export function instanceView(row: InstanceRow, parentNames: readonly string[] | string, allowed?: ReadonlySet<Permission>) {
  const folderPath = typeof parentNames === 'string' ? parentNames : parentNames.join('/');
  return {
    instanceId: row.id,
    instanceName: row.name,
    classifierId: row.isFolder ? 'Folder' : 'File',
    parentId: row.parentId ?? '0',
    libCode: row.libCode,
    instanceType: row.instanceType,
    fSize: row.size,
    fType: row.ext,
    fileType: row.fileType,
    fMd5: row.sha256,
    fileSharingId: null,
    userId: row.createdBy,
    userName: row.createdByName,
    createTime: row.createdAt,
    updateTime: row.updatedAt,
    version: row.version,
    linkpath: row.parentId === null ? '' : folderPath === '' ? row.name : `${folderPath}/${row.name}`,
    parentNames: folderPath,
    editIsDisabled: row.parentId === null || (allowed !== undefined && !allowed.has('edit')),
    isDisabled: row.parentId === null || (allowed !== undefined && !allowed.has('delete')),
    remark: row.remark,
    spaceId: row.spaceId,
  } satisfies Schemas['Instance'];
}

export async function viewOf(db: Db, row: InstanceRow, allowed?: ReadonlySet<Permission>) {
  return instanceView(row, row.parentId === null ? [] : await parentNamesOf(db, row), allowed);
}

/**
 * Views of many rows, reading each distinct parent's ancestry once (a batch usually shares one folder); `allowed[i]`
 * is what the caller may do on rows[i] (see instanceView).
 */
export async function viewsOf(db: Db, rows: readonly InstanceRow[], allowed?: readonly ReadonlySet<Permission>[]) {
  const byParent = new Map<string, Promise<string[]>>();
  const namesOf = (row: InstanceRow): Promise<string[]> => {
    if (row.parentId === null) return Promise.resolve([]);
    let names = byParent.get(row.parentId);
    if (!names) {
      names = parentNamesOf(db, row);
      byParent.set(row.parentId, names);
    }
    return names;
  };
  const out = [];
  for (const [i, row] of rows.entries()) out.push(instanceView(row, await namesOf(row), allowed?.[i]));
  return out;
}

/** What a ranged download from storage needs: key, sizes of the parts, the endpoint and the hash to verify. */
/** The stored content of a file, from the row itself (its query joins the blob): no lookup per file. */
export function contentOf(row: InstanceRow): { id: string; sha256: string; size: number; objectKey: string } {
  if (row.isFolder) throw new AppError('CONFLICT', 'a folder downloads as a zip (getZipDownloadUrl)');
  if (!row.blobId || row.objectKey === null || row.sha256 === null || row.blobSize === null) throw new AppError('NOT_FOUND', 'the file has no stored content');
  return { id: row.blobId, sha256: row.sha256, size: row.blobSize, objectKey: row.objectKey };
}

export function downloadInfo(store: ObjectStore, row: InstanceRow, endpoint: string = store.publicEndpoint) {
  const blob = contentOf(row);
  const partNum = Math.ceil(blob.size / DOWNLOAD_PART_SIZE);
  return {
    fileId: blob.id,
    instanceId: row.id,
    fMd5: blob.sha256,
    bucketName: store.bucket,
    filename: row.name,
    fileSize: blob.size,
    partSize: DOWNLOAD_PART_SIZE,
    partNum,
    lastPartSize: partNum === 0 ? 0 : blob.size - (partNum - 1) * DOWNLOAD_PART_SIZE,
    objectKey: blob.objectKey,
    resourceUri: `/${store.bucket}/${uriEncode(blob.objectKey, false)}`,
    fileType: 's3',
    encryption: '',
    host: endpoint,
    region: store.region,
  } satisfies Schemas['DownloadFileInfo'];
}
