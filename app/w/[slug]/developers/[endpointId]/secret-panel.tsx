"use client";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { CopyField } from "@/components/copy-button";
import { ConfirmAction } from "@/components/confirm-action";
import { useToast } from "@/components/toast";
import { secondaryButtonClass } from "@/components/ui";
import { replaceSecretAction, revealSecretAction } from "../actions";
import { runAction as run } from "@/components/run-action";

/** Reveal (fetched on demand, never in the page's HTML) and replace the signing secret. */
export function SecretPanel({ slug, id }: { slug: string; id: number }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [confirm, setConfirm] = useState(false);
  const toast = useToast();
  const reveal = useMutation({ mutationFn: () => run(revealSecretAction(slug, { id })), onSuccess: setSecret });
  return (
    <div className="space-y-3">
      <p className="text-sm text-slate-600">
        Verify each delivery&apos;s Service-Signature with this secret. A replacement takes effect from the next attempt, retries included.
      </p>
      {secret ? (
        <CopyField label="Secret" value={secret} what="signing secret" />
      ) : (
        <p className="rounded bg-slate-100 px-2 py-1 font-mono text-xs text-slate-600">whsec_••••••••••••••••</p>
      )}
      <div className="flex flex-wrap gap-2">
        {secret ? (
          <button type="button" className={secondaryButtonClass} onClick={() => setSecret(null)}>
            Hide
          </button>
        ) : (
          <button type="button" className={secondaryButtonClass} onClick={() => reveal.mutate()} disabled={reveal.isPending}>
            Reveal
          </button>
        )}
        <button type="button" className={secondaryButtonClass} onClick={() => setConfirm(true)}>
          Replace secret
        </button>
      </div>
      {reveal.error && (
        <p role="alert" className="text-sm text-red-700">
          {reveal.error.message}
        </p>
      )}
      <ConfirmAction
        open={confirm}
        setOpen={setConfirm}
        action={() => run(replaceSecretAction(slug, { id }))}
        onDone={(s) => {
          setSecret(s);
          setConfirm(false);
          toast("Secret replaced; the next attempt is signed with it");
        }}
        title="Replace the signing secret?"
        confirmLabel="Replace secret"
      >
        The next attempt (retries included) is signed with the new secret; the old one stops working at once. Update your receiver first, or
        accept a short gap.
      </ConfirmAction>
    </div>
  );
}
