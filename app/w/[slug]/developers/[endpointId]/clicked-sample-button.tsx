"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { secondaryButtonClass } from "@/components/ui";
import { sendClickedSampleAction } from "../actions";
import { runAction as run } from "@/components/run-action";
import { describeOutcome } from "../format";

/** Sends a sample link.clicked to this endpoint alone (one attempt) and shows the outcome. */
export function ClickedSampleButton({ slug, id, disabled }: { slug: string; id: number; disabled: boolean }) {
  const router = useRouter();
  const send = useMutation({
    mutationFn: () => run(sendClickedSampleAction(slug, { id })),
    onSuccess: () => router.refresh(),
  });
  const r = send.data;
  return (
    <div className="space-y-2">
      <button type="button" className={secondaryButtonClass} onClick={() => send.mutate()} disabled={disabled || send.isPending}>
        {send.isPending ? "Sending…" : "Send a link.clicked sample"}
      </button>
      <div aria-live="polite">
        {r && (
          <p
            role="status"
            className={`rounded-md px-3 py-2 text-sm ${r.delivered ? "bg-green-50 text-green-800" : "bg-red-50 text-red-800"}`}
          >
            {!r.attempted ? r.message : `${r.delivered ? "Delivered" : "Failed"}: ${describeOutcome(r.outcome, r.statusCode)}`}
          </p>
        )}
        {send.error && (
          <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
            {send.error.message}
          </p>
        )}
      </div>
    </div>
  );
}
