"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmAction } from "@/components/confirm-action";
import { useToast } from "@/components/toast";
import { dangerButtonClass } from "@/components/ui";
import { deleteEndpointAction, setEnabledAction } from "./actions";
import { runAction as run } from "@/components/run-action";

/** The enabled switch: turning an endpoint on restarts its failure count. */
export function EnabledSwitch({ slug, id, enabled, url }: { slug: string; id: number; enabled: boolean; url: string }) {
  const router = useRouter();
  const toast = useToast();
  const toggle = useMutation({
    mutationFn: (on: boolean) => run(setEnabledAction(slug, { id, enabled: on })),
    onSuccess: (ep) => {
      toast(ep.enabled ? "Endpoint enabled" : "Endpoint disabled; nothing is sent to it until you enable it again");
      router.refresh();
    },
    onError: (e) => toast(e.message, "error"),
  });
  return (
    <button
      type="button"
      role="switch"
      aria-checked={enabled}
      aria-label={`Enabled: ${url}`}
      disabled={toggle.isPending}
      onClick={() => toggle.mutate(!enabled)}
      className={`relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition-colors disabled:opacity-50 ${enabled ? "bg-brand-600" : "bg-slate-300"}`}
    >
      <span
        className={`inline-block h-5 w-5 transform rounded-full bg-white shadow transition-transform ${enabled ? "translate-x-5" : "translate-x-0.5"}`}
      />
    </button>
  );
}

export function DeleteEndpointButton({ slug, id, url }: { slug: string; id: number; url: string }) {
  const [open, setOpen] = useState(false);
  const router = useRouter();
  const toast = useToast();
  return (
    <>
      <button type="button" className={dangerButtonClass} onClick={() => setOpen(true)}>
        Remove endpoint
      </button>
      <ConfirmAction
        open={open}
        setOpen={setOpen}
        action={() => run(deleteEndpointAction(slug, { id }))}
        onDone={() => {
          toast("Endpoint removed");
          router.push(`/w/${slug}/developers`);
        }}
        title="Remove this endpoint?"
        confirmLabel="Remove endpoint"
      >
        Nothing more is sent to <span className="break-all font-mono">{url}</span>, and its delivery log is deleted.
      </ConfirmAction>
    </>
  );
}
