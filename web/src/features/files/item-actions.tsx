// The row actions every file list shares (the folder screen, favourites, search, labels): favourite, labels,
// versions and properties, with their dialogs. The screen passes what "changed" means for it (refetch its page).
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { addFavourite, deleteFavourite } from '../../api/gen/files/files.ts';
import type { Instance } from '../../api/gen/model/instance.ts';
import { HcsError } from '../../api/hcs-error.ts';
import { errorMessage } from '../../shared/error-message.ts';
import { toastError, toastSuccess } from '../../shared/notify.ts';
import type { RowAction } from './FileTable.tsx';
// Loaded when first opened: the colour picker, the remark editor and the versions table would weigh on the files
// screen's first paint (web/scripts/check-budget.ts).
const PropertiesDialog = lazy(() => import('./PropertiesDialog.tsx').then((m) => ({ default: m.PropertiesDialog })));
const LabelDialog = lazy(() => import('./LabelDialog.tsx'));
const VersionsDialog = lazy(() => import('./VersionsDialog.tsx'));
const CreateLinkDialog = lazy(() => import('../../shared/sharing/CreateLinkDialog.tsx'));

export async function toggleFavourite(item: Instance): Promise<boolean> {
  if (item.isFavourite) {
    await deleteFavourite({ ids: item.instanceId }, { quiet: true });
    return false;
  }
  const res = await addFavourite({ ids: item.instanceId }, { quiet: true });
  const failed = res.data?.failed?.[0];
  // A per-item failure reads like the call's own: the same message by code.
  if (failed) throw new HcsError(200, 1, failed.msg, failed.code);
  return true;
}

/** Where an item sits: the folder names below the library root the server gives with it. */
export const locationOf = (item: Instance): string => '/' + (item.parentNames ?? '');

export function useItemActions(opts: { onChanged: () => void; folderPath?: (item: Instance) => string }): {
  handle: (action: RowAction, item: Instance) => boolean;
  dialogs: ReactNode;
} {
  const { t } = useTranslation();
  const [labelFor, setLabelFor] = useState<Instance | undefined>();
  const [versionsOf, setVersionsOf] = useState<Instance | undefined>();
  const [props, setProps] = useState<Instance | undefined>();
  const [linkFor, setLinkFor] = useState<Instance | undefined>();

  const handle = (action: RowAction, item: Instance): boolean => {
    switch (action) {
      case 'favourite':
        toggleFavourite(item).then(
          (on) => {
            toastSuccess(t(on ? 'favourites.added' : 'favourites.removed', { name: item.instanceName }));
            opts.onChanged();
          },
          (err: unknown) => toastError(errorMessage(err, { name: item.instanceName })),
        );
        return true;
      case 'label':
        setLabelFor(item);
        return true;
      case 'versions':
        setVersionsOf(item);
        return true;
      case 'properties':
        setProps(item);
        return true;
      case 'shareLink':
        setLinkFor(item);
        return true;
      default:
        return false;
    }
  };

  const dialogs = (
    <>
      <Suspense fallback={null}>
        {labelFor && <LabelDialog item={labelFor} onClose={() => setLabelFor(undefined)} onSaved={opts.onChanged} />}
        {versionsOf && <VersionsDialog item={versionsOf} onClose={() => setVersionsOf(undefined)} onChanged={opts.onChanged} />}
        {linkFor && <CreateLinkDialog items={[linkFor]} onClose={() => setLinkFor(undefined)} />}
        {props && (
          <PropertiesDialog
            item={props}
            folderPath={(opts.folderPath ?? locationOf)(props)}
            onClose={() => setProps(undefined)}
            onRemarkSaved={opts.onChanged}
            onVersions={(i) => setVersionsOf(i)}
          />
        )}
      </Suspense>
    </>
  );
  return { handle, dialogs };
}
