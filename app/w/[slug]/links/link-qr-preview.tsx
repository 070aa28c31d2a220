"use client";
import { useEffect, useState } from "react";

// The QR code of the short URL as it is being typed, drawn in the browser by the same `qrcode`
// package the link page draws it with on the server (components/qr.tsx). Loaded on first use, so
// the form's own script stays small.

export function LinkQrPreview({ value }: { value: string }) {
  const [drawn, setDrawn] = useState<{ value: string; svg: string } | null>(null);
  useEffect(() => {
    let current = true;
    import("qrcode")
      .then((QRCode) =>
        QRCode.toString(value, { type: "svg", margin: 1, errorCorrectionLevel: "M", color: { dark: "#0f172a", light: "#ffffff" } }),
      )
      .then((svg) => {
        if (current) setDrawn({ value, svg });
      })
      .catch(() => {});
    return () => {
      current = false;
    };
  }, [value]);
  return (
    <div data-testid="qr-preview" className="flex h-40 w-40 items-center justify-center rounded border border-slate-200 bg-white">
      {drawn && (
        // eslint-disable-next-line @next/next/no-img-element
        <img
          src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(drawn.svg)}`}
          alt={`QR code preview for ${drawn.value}`}
          width={160}
          height={160}
          className={drawn.value === value ? "" : "opacity-60"}
        />
      )}
    </div>
  );
}
