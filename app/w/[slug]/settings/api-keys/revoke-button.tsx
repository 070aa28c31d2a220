"use client";
import { useState, useTransition } from "react";
import { ConfirmDialog } from "@/components/dialog";
import { useToast } from "@/components/toast";
import { dangerButtonClass } from "@/components/ui";
import { revokeKeyAction } from "./actions";

export function RevokeKeyButton({ slug, id, label }: { slug: string; id: number; label: string }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, start] = useTransition();
  const toast = useToast();
  return (
    <>
      <button type="button" className={`${dangerButtonClass} px-2 py-1 text-xs`} onClick={() => setOpen(true)}>
        Revoke
      </button>
      <ConfirmDialog
        open={open}
        onClose={() => {
          setOpen(false);
          setError(null);
        }}
        title="Revoke this API key?"
        confirmLabel="Revoke key"
        pending={pending}
        error={error}
        onConfirm={() =>
          start(async () => {
            const r = await revokeKeyAction(slug, id);
            if (r.ok) {
              setOpen(false);
              toast("API key revoked");
            } else setError(r.error);
          })
        }
      >
        Requests with <code className="font-mono">{label}</code> will be refused (401) right away. This cannot be undone.
      </ConfirmDialog>
    </>
  );
}
