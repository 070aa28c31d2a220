"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useToast } from "@/components/toast";
import { secondaryButtonClass } from "@/components/ui";
import { resendAction } from "../actions";
import { runAction as run } from "@/components/run-action";
import { describeOutcome } from "../format";

/** One attempt now of this delivery (same event id and body), logged as a manual attempt. */
export function ResendButton({ slug, endpointId, deliveryId }: { slug: string; endpointId: number; deliveryId: number }) {
  const router = useRouter();
  const toast = useToast();
  const resend = useMutation({
    mutationFn: () => run(resendAction(slug, { id: endpointId, deliveryId })),
    onSuccess: (r) => {
      if (!r.attempted) toast(r.message ?? "Nothing was sent.", "error");
      else
        toast(
          r.delivered
            ? `Resent: ${describeOutcome(r.outcome, r.statusCode)}`
            : `Resend failed: ${describeOutcome(r.outcome, r.statusCode)}`,
          r.delivered ? "success" : "error",
        );
      router.refresh();
    },
    onError: (e) => toast(e.message, "error"),
  });
  return (
    <button type="button" className={secondaryButtonClass} onClick={() => resend.mutate()} disabled={resend.isPending}>
      {resend.isPending ? "Resending…" : "Resend"}
    </button>
  );
}
