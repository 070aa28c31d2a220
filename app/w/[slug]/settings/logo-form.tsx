"use client";
import { useRouter } from "next/navigation";
import { useId, useRef, useState } from "react";
import { buttonClass, FormError, secondaryButtonClass } from "@/components/ui";
import { useToast } from "@/components/toast";

// The workspace's QR logo (lib/workspaces/logo.ts): the file's bytes are sent as they are to the
// workspace's logo route (PUT), which decides the type from the bytes and refuses the rest.

export function LogoForm({ slug, logoUrl, maxKb, canManage }: { slug: string; logoUrl: string | null; maxKb: number; canManage: boolean }) {
  const router = useRouter();
  const toast = useToast();
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const id = useId();

  async function send(method: "PUT" | "DELETE", file?: File) {
    setPending(true);
    setError(null);
    try {
      const res = await fetch(`/w/${encodeURIComponent(slug)}/logo`, {
        method,
        body: file,
        headers: file ? { "Content-Type": file.type || "application/octet-stream" } : undefined,
      });
      if (!res.ok) {
        setError((await res.text()).trim() || `The logo could not be saved (${res.status}).`);
        return;
      }
      toast(method === "PUT" ? "Logo saved" : "Logo removed");
      if (input.current) input.current.value = "";
      router.refresh();
    } catch {
      setError("The logo could not be sent; try again.");
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="space-y-3">
      <p className="text-sm text-slate-600">
        Shown in the centre of the workspace&rsquo;s QR codes when the designer on a link&rsquo;s page has it on. PNG, JPEG or SVG, at most{" "}
        {maxKb} KB; a square image works best.
      </p>
      {logoUrl && (
        // eslint-disable-next-line @next/next/no-img-element
        <img
          src={logoUrl}
          alt="Current QR logo"
          width={64}
          height={64}
          className="h-16 w-16 rounded border border-slate-200 object-contain"
        />
      )}
      {canManage ? (
        <form
          className="flex flex-col gap-3 sm:flex-row sm:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            const file = input.current?.files?.[0];
            if (!file) setError("Choose an image file.");
            else void send("PUT", file);
          }}
        >
          <div className="flex-1 space-y-1">
            <label htmlFor={id} className="block text-sm font-medium text-slate-700">
              Logo file
            </label>
            <input
              ref={input}
              id={id}
              type="file"
              accept="image/png,image/jpeg,image/svg+xml"
              className="block w-full text-sm text-slate-700 file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:text-sm"
            />
          </div>
          <button className={buttonClass} disabled={pending}>
            Upload logo
          </button>
          {logoUrl && (
            <button type="button" className={secondaryButtonClass} disabled={pending} onClick={() => void send("DELETE")}>
              Remove logo
            </button>
          )}
        </form>
      ) : (
        <p className="text-sm text-slate-600">Only owners and admins can change the logo.</p>
      )}
      <FormError message={error} />
    </div>
  );
}
