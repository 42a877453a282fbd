// A dialog whose code loads when it first opens, not with the screen that can open it (issue #22 weight,
// web/scripts/check-budget.ts). Once opened it stays mounted, so it closes with its animation and keeps its state
// the way an always-mounted dialog did.
import { lazy, Suspense, useState, type ComponentType } from 'react';

export function lazyDialog<P extends object>(load: () => Promise<ComponentType<P>>, isOpen: (props: P) => boolean): ComponentType<P> {
  const Dialog = lazy(async () => ({ default: await load() }));
  return function LazyDialog(props: P) {
    const open = isOpen(props);
    const [opened, setOpened] = useState(open);
    if (open && !opened) setOpened(true);
    if (!opened) return null;
    return (
      <Suspense fallback={null}>
        <Dialog {...props} />
      </Suspense>
    );
  };
}
