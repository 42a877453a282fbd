// The room the corner transfer card takes at the bottom of the window (issue #22). The card is fixed in the corner,
// so a list that fills the window would slide its last rows and its pagination under it: the card reports its
// height here and the file list reserves that much at its bottom while it shows.
import { useSyncExternalStore } from 'react';

/** The card's distance from the window's bottom edge, and the gap kept between it and the list above. */
export const CORNER_OFFSET = 16;
const GAP = 8;

let inset = 0;
const listeners = new Set<() => void>();

/** The card's own height, or 0 when it hides. */
export function reportCornerHeight(height: number): void {
  const next = height > 0 ? Math.ceil(height) + CORNER_OFFSET + GAP : 0;
  if (next === inset) return;
  inset = next;
  for (const l of listeners) l();
}

/** Pixels at the bottom of the window the list should keep clear. */
export function useCornerInset(): number {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => inset,
  );
}
