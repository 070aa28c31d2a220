"use client";
import { Dialog } from "@/components/dialog";

// The Links page's keyboard shortcuts, listed behind "?" (the keys are handled in links-table.tsx
// through components/shortcuts.tsx; C opens the quick-create dialog).
export const LINK_SHORTCUTS: [keys: string[], what: string][] = [
  [["C"], "Create a link"],
  [["/"], "Search links"],
  [["J"], "Move down the list"],
  [["K"], "Move up the list"],
  [["X"], "Select or unselect the link"],
  [["Enter"], "Open the link"],
  [["Esc"], "Clear the selection, close a dialog"],
  [["?"], "Show these shortcuts"],
];

export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onClose={onClose} title="Keyboard shortcuts" description="They work anywhere on this page except in a text field.">
      <dl className="divide-y divide-slate-100 text-sm">
        {LINK_SHORTCUTS.map(([keys, what]) => (
          <div key={what} className="flex items-center justify-between gap-4 py-2">
            <dt className="text-slate-700">{what}</dt>
            <dd className="flex gap-1">
              {keys.map((k) => (
                <kbd key={k} className="rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs text-slate-800">
                  {k}
                </kbd>
              ))}
            </dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
