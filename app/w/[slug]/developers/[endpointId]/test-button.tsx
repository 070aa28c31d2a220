"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { buttonClass } from "@/components/ui";
import { sendTestAction } from "../actions";
import { runAction as run } from "@/components/run-action";
import { describeOutcome } from "../format";

/** Sends webhook.test to this endpoint alone (one attempt) and shows the outcome. */
export function TestButton({ slug, id, disabled }: { slug: string; id: number; disabled: boolean }) {
  const router = useRouter();
  const test = useMutation({
    mutationFn: () => run(sendTestAction(slug, { id })),
    onSuccess: () => router.refresh(),
  });
  const r = test.data;
  return (
    <div className="space-y-3">
      <button type="button" className={buttonClass} onClick={() => test.mutate()} disabled={disabled || test.isPending}>
        {test.isPending ? "Sending…" : "Send test event"}
      </button>
      <div aria-live="polite">
        {r && (
          <p
            role="status"
            className={`rounded-md px-3 py-2 text-sm ${r.delivered ? "bg-green-50 text-green-800" : "bg-red-50 text-red-800"}`}
          >
            {!r.attempted
              ? r.message
              : r.delivered
                ? `Delivered: ${describeOutcome(r.outcome, r.statusCode)}`
                : `Failed: ${describeOutcome(r.outcome, r.statusCode)}${r.message && r.outcome !== "http_status" ? ` (${r.message})` : ""}`}
          </p>
        )}
        {test.error && (
          <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
            {test.error.message}
          </p>
        )}
      </div>
    </div>
  );
}
