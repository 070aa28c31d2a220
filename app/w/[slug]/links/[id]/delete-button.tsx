"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmAction } from "@/components/confirm-action";
import { useToast } from "@/components/toast";
import { secondaryButtonClass } from "@/components/ui";
import { deleteLinkAction } from "../actions";

export function DeleteLinkButton({ slug, id, short }: { slug: string; id: number; short: string }) {
  const [open, setOpen] = useState(false);
  const router = useRouter();
  const toast = useToast();
  return (
    <>
      <button type="button" className={`${secondaryButtonClass} text-red-700`} onClick={() => setOpen(true)}>
        Delete
      </button>
      <ConfirmAction
        open={open}
        setOpen={setOpen}
        action={async () => {
          const r = await deleteLinkAction(slug, { id });
          if (!r.ok) throw new Error(r.error);
        }}
        onDone={() => {
          toast(`Deleted ${short}`);
          router.push(`/w/${slug}/links`);
          router.refresh();
        }}
        title="Delete this link?"
        confirmLabel="Delete link"
      >
        <p>
          <span className="font-mono font-medium">{short}</span> will stop working at once. This cannot be undone, and it does not give back
          this month&apos;s link allowance.
        </p>
      </ConfirmAction>
    </>
  );
}
