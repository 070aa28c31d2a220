"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmDialog } from "@/components/dialog";
import { useToast } from "@/components/toast";
import { secondaryButtonClass } from "@/components/ui";
import { deleteLinkAction } from "../actions";

export function DeleteLinkButton({ slug, id, short }: { slug: string; id: number; short: string }) {
  const [open, setOpen] = useState(false);
  const router = useRouter();
  const toast = useToast();
  const remove = useMutation({
    mutationFn: async () => {
      const r = await deleteLinkAction(slug, { id });
      if (!r.ok) throw new Error(r.error);
    },
    onSuccess: () => {
      toast(`Deleted ${short}`);
      router.push(`/w/${slug}/links`);
      router.refresh();
    },
  });
  return (
    <>
      <button type="button" className={`${secondaryButtonClass} text-red-700`} onClick={() => setOpen(true)}>
        Delete
      </button>
      <ConfirmDialog
        open={open}
        onClose={() => {
          setOpen(false);
          remove.reset();
        }}
        onConfirm={() => remove.mutate()}
        title="Delete this link?"
        confirmLabel="Delete link"
        pending={remove.isPending}
        error={remove.error?.message}
      >
        <p>
          <span className="font-mono font-medium">{short}</span> will stop working at once. This cannot be undone, and it does not give back
          this month&apos;s link allowance.
        </p>
      </ConfirmDialog>
    </>
  );
}
