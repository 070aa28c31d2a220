"use client";
import { useState } from "react";
import { ConfirmAction } from "@/components/confirm-action";
import { Dialog } from "@/components/dialog";
import { useToast } from "@/components/toast";
import { buttonClass, inputClass, secondaryButtonClass } from "@/components/ui";
import { bulkEditLinksAction } from "./actions";

// The selection bar's other actions (beside add/remove tag): move to a folder, activate,
// deactivate, set or clear the expiry, delete (confirmed, naming the count). Each is one call of
// the bulk service (lib/links/bulk-edit.ts); the result is said in words ("3 links deactivated").

type Input =
  | { action: "delete" }
  | { action: "move"; folder: string }
  | { action: "setActive"; active: boolean }
  | { action: "setExpiry"; expiresOn: number | null };

const links = (n: number) => `${n.toLocaleString("en")} link${n === 1 ? "" : "s"}`;

/** What a result reads as. */
export function resultText(input: Input, changed: number): string {
  if (input.action === "delete") return `${links(changed)} deleted`;
  if (input.action === "move") return `${links(changed)} moved to ${input.folder ? `“${input.folder}”` : "the top level"}`;
  if (input.action === "setActive") return `${links(changed)} ${input.active ? "activated" : "deactivated"}`;
  return `Expiry ${input.expiresOn === null ? "cleared on" : "set on"} ${links(changed)}`;
}

export function BulkActions({
  slug,
  ids,
  folders,
  onDone,
  deleteOpen,
  setDeleteOpen,
}: {
  slug: string;
  ids: number[];
  folders: string[];
  onDone: () => void;
  /** owned by the list, so its Esc and shortcuts know a dialog is open */
  deleteOpen: boolean;
  setDeleteOpen: (open: boolean) => void;
}) {
  const toast = useToast();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [dialog, setDialog] = useState<"move" | "expiry" | null>(null);
  const [folder, setFolder] = useState("");
  const [expiry, setExpiry] = useState("");

  async function call(input: Input): Promise<number> {
    const r = await bulkEditLinksAction(slug, { ...input, ids }).catch(() => ({
      ok: false as const,
      error: "The server could not be reached.",
    }));
    if (!r.ok) throw new Error(r.error);
    return r.data.changed;
  }

  async function run(input: Input) {
    setPending(true);
    setError(null);
    try {
      const changed = await call(input);
      toast(resultText(input, changed));
      setDialog(null);
      onDone();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setPending(false);
    }
  }

  const count = links(ids.length);
  return (
    <>
      <button type="button" className={secondaryButtonClass} disabled={pending} onClick={() => setDialog("move")}>
        Move to folder…
      </button>
      <button type="button" className={secondaryButtonClass} disabled={pending} onClick={() => run({ action: "setActive", active: true })}>
        Activate
      </button>
      <button type="button" className={secondaryButtonClass} disabled={pending} onClick={() => run({ action: "setActive", active: false })}>
        Deactivate
      </button>
      <button type="button" className={secondaryButtonClass} disabled={pending} onClick={() => setDialog("expiry")}>
        Set expiry…
      </button>
      <button
        type="button"
        className={secondaryButtonClass}
        disabled={pending}
        onClick={() => run({ action: "setExpiry", expiresOn: null })}
      >
        Clear expiry
      </button>
      <button
        type="button"
        className={`${secondaryButtonClass} text-red-700`}
        disabled={pending}
        onClick={() => {
          setError(null);
          setDeleteOpen(true);
        }}
      >
        Delete…
      </button>
      {error && !dialog && (
        <p role="alert" className="w-full text-red-700">
          {error}
        </p>
      )}

      <Dialog open={dialog === "move"} onClose={() => setDialog(null)} title={`Move ${count} to a folder`}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run({ action: "move", folder: folder.trim() });
          }}
          className="space-y-3"
        >
          <label className="block text-sm font-medium text-slate-800">
            Folder
            <input
              value={folder}
              onChange={(e) => setFolder(e.target.value)}
              list="bulk-folder-names"
              placeholder="marketing/2026 (empty: the top level)"
              className={`${inputClass} mt-1`}
              maxLength={200}
            />
          </label>
          <datalist id="bulk-folder-names">
            {folders.map((f) => (
              <option key={f} value={f} />
            ))}
          </datalist>
          <DialogFormEnd error={error} pending={pending} label={`Move ${count}`} onCancel={() => setDialog(null)} />
        </form>
      </Dialog>

      <Dialog open={dialog === "expiry"} onClose={() => setDialog(null)} title={`Set the expiry of ${count}`}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const at = new Date(expiry).getTime();
            if (!expiry || Number.isNaN(at)) return setError("Choose a date and time.");
            void run({ action: "setExpiry", expiresOn: Math.floor(at / 1000) });
          }}
          className="space-y-3"
        >
          <label className="block text-sm font-medium text-slate-800">
            Expires at (your time)
            <input type="datetime-local" value={expiry} onChange={(e) => setExpiry(e.target.value)} className={`${inputClass} mt-1`} />
          </label>
          <DialogFormEnd error={error} pending={pending} label="Set expiry" onCancel={() => setDialog(null)} />
        </form>
      </Dialog>

      <ConfirmAction
        open={deleteOpen}
        setOpen={setDeleteOpen}
        action={() => call({ action: "delete" })}
        onDone={(changed) => {
          toast(resultText({ action: "delete" }, changed));
          setDeleteOpen(false);
          onDone();
        }}
        title={`Delete ${count}?`}
        confirmLabel={`Delete ${count}`}
      >
        <p>They stop working at once. This cannot be undone, and it does not give back this month&apos;s link allowance.</p>
      </ConfirmAction>
    </>
  );
}

/** The end of a bulk dialog's form: its error, Cancel, and the submit button. */
function DialogFormEnd({
  error,
  pending,
  label,
  onCancel,
}: {
  error: string | null;
  pending: boolean;
  label: string;
  onCancel: () => void;
}) {
  return (
    <>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <button type="button" className={secondaryButtonClass} onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className={buttonClass} disabled={pending}>
          {label}
        </button>
      </div>
    </>
  );
}
