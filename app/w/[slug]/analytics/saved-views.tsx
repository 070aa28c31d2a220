"use client";
import Link from "next/link";
import { useState, useTransition } from "react";
import { withParams } from "@/lib/analytics/reports/page-url";
import { ConfirmDialog } from "@/components/dialog";
import { useToast } from "@/components/toast";
import { Card, inputClass, secondaryButtonClass } from "@/components/ui";
import { deleteViewAction, revokeShareAction, saveViewAction, shareViewAction } from "./actions";

// The Analytics page's saved views: save the current filters and range under a name, open a saved
// one, and (owners and admins) create or revoke its read-only share link. A share link's URL is
// shown once, when it is created (only its hash is kept); creating it again replaces it.

export type SavedViewItem = { id: number; name: string; params: Record<string, string>; shared: boolean };

export function SavedViews({
  slug,
  params,
  views,
  canSave,
  canShare,
}: {
  slug: string;
  /** the page's current parameters (what a save keeps) */
  params: Record<string, string>;
  views: SavedViewItem[];
  canSave: boolean;
  canShare: boolean;
}) {
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [shared, setShared] = useState<{ id: number; url: string } | null>(null);
  const [revoking, setRevoking] = useState<SavedViewItem | null>(null);
  const [pending, start] = useTransition();
  const toast = useToast();
  const base = `/w/${slug}/analytics`;

  function save(e: React.FormEvent) {
    e.preventDefault();
    start(async () => {
      const r = await saveViewAction(slug, name, params);
      if (r.ok) {
        setName("");
        setError(null);
        toast(`View "${r.data.name}" saved`);
      } else setError(r.error);
    });
  }

  return (
    <Card title="Saved views">
      {canSave && (
        <form onSubmit={save} className="mb-4 flex flex-wrap items-end gap-2" aria-label="Save this view">
          <label className="min-w-48 flex-1 text-sm font-medium text-slate-700">
            Name of this view
            <input
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={60}
              className={`${inputClass} mt-1`}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? "save-view-error" : undefined}
            />
          </label>
          <button type="submit" className={secondaryButtonClass} disabled={pending}>
            Save view
          </button>
          {error && (
            <p id="save-view-error" role="alert" className="w-full text-sm text-red-700">
              {error}
            </p>
          )}
        </form>
      )}
      {shared && (
        <div role="status" className="mb-4 rounded-md border border-emerald-200 bg-emerald-50 p-3 text-sm text-emerald-900">
          <p className="font-medium">Share link created. Copy it now: it is shown only once.</p>
          <input
            readOnly
            value={shared.url}
            aria-label="Share link"
            data-testid="share-url"
            className={`${inputClass} mt-2 font-mono text-xs`}
            onFocus={(e) => e.currentTarget.select()}
          />
        </div>
      )}
      {views.length === 0 ? (
        <p className="text-sm text-slate-600">No saved views yet.</p>
      ) : (
        <ul className="divide-y divide-slate-100 text-sm" aria-label="Saved views">
          {views.map((v) => (
            <li key={v.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
              <span className="flex items-center gap-2">
                <Link href={withParams(base, v.params)} className="font-medium text-brand-700 hover:underline">
                  {v.name}
                </Link>
                {v.shared && <span className="rounded-full bg-emerald-100 px-2 py-0.5 text-xs text-emerald-800">shared</span>}
              </span>
              <span className="flex flex-wrap gap-2">
                {canShare && (
                  <button
                    type="button"
                    className={`${secondaryButtonClass} px-2 py-1 text-xs`}
                    disabled={pending}
                    aria-label={`${v.shared ? "New share link" : "Create share link"}: ${v.name}`}
                    onClick={() =>
                      start(async () => {
                        const r = await shareViewAction(slug, v.id);
                        if (r.ok) setShared({ id: v.id, url: r.data.url });
                        else toast(r.error);
                      })
                    }
                  >
                    {v.shared ? "New share link" : "Share"}
                  </button>
                )}
                {canShare && v.shared && (
                  <button
                    type="button"
                    className={`${secondaryButtonClass} px-2 py-1 text-xs`}
                    aria-label={`Revoke share link: ${v.name}`}
                    onClick={() => setRevoking(v)}
                  >
                    Revoke link
                  </button>
                )}
                {canSave && (
                  <button
                    type="button"
                    className={`${secondaryButtonClass} px-2 py-1 text-xs`}
                    disabled={pending}
                    aria-label={`Delete view: ${v.name}`}
                    onClick={() =>
                      start(async () => {
                        const r = await deleteViewAction(slug, v.id);
                        toast(r.ok ? `View "${v.name}" deleted` : r.error);
                      })
                    }
                  >
                    Delete
                  </button>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title="Revoke this share link?"
        confirmLabel="Revoke link"
        pending={pending}
        onConfirm={() =>
          start(async () => {
            if (!revoking) return;
            const r = await revokeShareAction(slug, revoking.id);
            if (r.ok) {
              if (shared?.id === revoking.id) setShared(null);
              setRevoking(null);
              toast("Share link revoked");
            } else toast(r.error);
          })
        }
      >
        Anyone opening the link of &quot;{revoking?.name}&quot; will get a not-found page from now on.
      </ConfirmDialog>
    </Card>
  );
}
