"use client";
import { useMutation } from "@tanstack/react-query";
import { formatDate } from "@/components/dates";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { DomainView } from "@/lib/domains";
import { CopyField } from "@/components/copy-button";
import { ConfirmAction } from "@/components/confirm-action";
import { Dialog } from "@/components/dialog";
import { useToast } from "@/components/toast";
import { Badge, buttonClass, Card, Field, inputClass, secondaryButtonClass } from "@/components/ui";
import { runAction as run } from "@/components/run-action";
import { addDomainAction, removeDomainAction, verifyDomainAction } from "./actions";
import { DomainSettings } from "./domain-settings";

export function AddDomainButton({ slug, disabled }: { slug: string; disabled: boolean }) {
  const [open, setOpen] = useState(false);
  const [host, setHost] = useState("");
  const router = useRouter();
  const toast = useToast();
  const add = useMutation({
    mutationFn: (h: string) => run(addDomainAction(slug, { host: h })),
    onSuccess: (d) => {
      toast(`${d.host} added. Create the DNS records, then verify.`);
      setOpen(false);
      setHost("");
      router.refresh();
    },
  });
  return (
    <>
      <button
        type="button"
        className={buttonClass}
        disabled={disabled}
        onClick={() => setOpen(true)}
        title={disabled ? "Your plan does not include custom domains" : undefined}
      >
        Add domain
      </button>
      <Dialog
        open={open}
        onClose={() => {
          setOpen(false);
          add.reset();
        }}
        title="Add a custom domain"
        description="Use a host you control, such as links.example.com. Its short links will work once it is verified."
      >
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate(host);
          }}
          className="space-y-4"
        >
          <Field label="Host" htmlFor="domain-host" error={add.error?.message}>
            <input
              id="domain-host"
              name="host"
              value={host}
              onChange={(e) => setHost(e.target.value)}
              placeholder="links.example.com"
              autoComplete="off"
              spellCheck={false}
              className={inputClass}
              aria-invalid={!!add.error}
              aria-describedby={add.error ? "domain-host-error" : undefined}
            />
          </Field>
          <div className="flex justify-end gap-2">
            <button type="button" className={secondaryButtonClass} onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button className={buttonClass} disabled={add.isPending}>
              {add.isPending ? "Adding…" : "Add domain"}
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

/** What HTTPS on the host takes, as this instance is set up (TLS_ON_DEMAND, lib/config). */
function httpsNote(host: string, verified: boolean, tlsOnDemand: boolean): string {
  if (!tlsOnDemand) {
    return `HTTPS: this instance does not obtain certificates for custom domains; ask its operator to set one up for ${host}, or its links are served over HTTP only.`;
  }
  return verified
    ? `HTTPS: served automatically. Once the DNS record points here, the first visit to https://${host} obtains its certificate.`
    : `HTTPS: served automatically once the host is verified and points here; the first visit obtains its certificate.`;
}

export function DomainCard({
  slug,
  domain,
  canManage,
  canVerify,
  tlsOnDemand,
}: {
  slug: string;
  domain: DomainView;
  canManage: boolean;
  canVerify: boolean;
  /** TLS_ON_DEMAND: the instance's proxy obtains certificates for verified domains (docs/operations.md "HTTPS for custom domains") */
  tlsOnDemand: boolean;
}) {
  const router = useRouter();
  const toast = useToast();
  const [result, setResult] = useState<{ verified: boolean; message: string } | null>(null);
  const [confirm, setConfirm] = useState(false);
  const verify = useMutation({
    mutationFn: () => run(verifyDomainAction(slug, { id: domain.id })),
    onSuccess: (r) => {
      setResult(r);
      if (r.verified) {
        toast(`${domain.host} is verified`);
        router.refresh();
      }
    },
    onError: (e) => setResult({ verified: false, message: e.message }),
  });

  return (
    <Card>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="break-all font-mono text-sm font-semibold">{domain.host}</h2>
          <p className="mt-0.5 text-xs text-slate-500">
            {domain.verified
              ? `Verified ${formatDate(domain.verifiedAt)} · ${domain.links} link${domain.links === 1 ? "" : "s"}`
              : "Waiting for DNS verification"}
          </p>
        </div>
        <div className="flex items-center gap-2">
          {domain.verified ? <Badge tone="green">Verified</Badge> : <Badge tone="amber">Pending</Badge>}
          {canManage && (
            <button type="button" className={secondaryButtonClass} onClick={() => setConfirm(true)} aria-label={`Remove ${domain.host}`}>
              Remove
            </button>
          )}
        </div>
      </div>

      <p className="mt-2 text-xs text-slate-600" data-testid="domain-https">
        {httpsNote(domain.host, domain.verified, tlsOnDemand)}
      </p>

      <DomainSettings slug={slug} domain={domain} canManage={canManage} />

      {!domain.verified && (
        <div className="mt-4 space-y-4 border-t border-slate-100 pt-4">
          <div>
            <p className="text-sm font-medium">1. Prove you own the host: add this TXT record at your DNS provider</p>
            <div className="mt-2 grid gap-3 sm:grid-cols-[auto_1fr_1fr]">
              <div>
                <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Type</p>
                <p className="mt-1 rounded bg-slate-100 px-2 py-1 font-mono text-xs">TXT</p>
              </div>
              <CopyField label="Name" value={domain.txtName} what="TXT name" />
              <CopyField label="Value" value={domain.txtValue} what="TXT value" />
            </div>
          </div>
          <div>
            <p className="text-sm font-medium">2. Point the host at Linkhop</p>
            <div className="mt-2 grid gap-3 sm:grid-cols-[auto_1fr_1fr]">
              <div>
                <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Type</p>
                <p className="mt-1 rounded bg-slate-100 px-2 py-1 font-mono text-xs">{domain.target.type}</p>
              </div>
              <CopyField label="Name" value={domain.target.name} what="CNAME name" />
              <CopyField label="Value" value={domain.target.value} what="CNAME value" />
            </div>
            <p className="mt-1 text-xs text-slate-500">
              For a bare domain (example.com) use your provider&apos;s ALIAS or ANAME record, or A and AAAA records to the same addresses as{" "}
              {domain.target.value}.
            </p>
          </div>
          {canManage && (
            <div className="flex flex-wrap items-center gap-3">
              <button type="button" className={buttonClass} onClick={() => verify.mutate()} disabled={verify.isPending || !canVerify}>
                {verify.isPending ? "Checking DNS…" : "Verify"}
              </button>
              {result && !result.verified && (
                <p role="alert" className="text-sm text-red-700">
                  {result.message}
                </p>
              )}
            </div>
          )}
        </div>
      )}

      <ConfirmAction
        open={confirm}
        setOpen={setConfirm}
        action={() => run(removeDomainAction(slug, { id: domain.id }))}
        onDone={() => {
          toast(`${domain.host} removed`);
          setConfirm(false);
          router.refresh();
        }}
        title={`Remove ${domain.host}?`}
        confirmLabel="Remove domain"
      >
        {domain.links > 0
          ? `${domain.links} link${domain.links === 1 ? "" : "s"} live on this domain; delete them first.`
          : "Short links will no longer be served on this host. You can add it again later (with a new TXT value)."}
      </ConfirmAction>
    </Card>
  );
}
