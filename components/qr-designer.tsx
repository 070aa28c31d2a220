"use client";
import QRCode from "qrcode";
import { useEffect, useId, useMemo, useState } from "react";
import { DEFAULT_QR_COLOURS, errorCorrectionFor, normaliseHex, qrColourProblem, qrSvg } from "@/lib/qr/design";
import { inputClass, secondaryButtonClass } from "./ui";

// The link page's QR code and its designer: colours (refused when a scanner may not read them, with
// the reason; lib/qr/design.ts), the workspace's logo in the centre (error correction H), and PNG
// and SVG downloads of exactly what is shown: one SVG text is shown, downloaded, and drawn for the
// PNG. Nothing is stored: the design is chosen when a code is downloaded (see docs/guide.md).

const PNG_SIZE = 1024;

type Props = { value: string; fileName: string; logoUrl: string | null; settingsHref: string };

/** The logo's bytes as a data URL, so the SVG carries it inside (a downloaded file has no session to fetch it with). */
function useLogoDataUrl(url: string | null): string | null {
  const [data, setData] = useState<{ url: string; href: string } | null>(null);
  useEffect(() => {
    if (!url) return;
    let live = true;
    fetch(url)
      .then((r) => (r.ok ? r.blob() : null))
      .then(
        (blob) =>
          blob &&
          new Promise<string>((resolve, reject) => {
            const reader = new FileReader();
            reader.onload = () => resolve(String(reader.result));
            reader.onerror = () => reject(reader.error);
            reader.readAsDataURL(blob);
          }),
      )
      .then((href) => live && href && setData({ url, href }))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [url]);
  return data && data.url === url ? data.href : null;
}

function ColourField({
  label,
  value,
  onChange,
  fallback,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  fallback: string;
}) {
  const id = useId();
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <div className="flex items-center gap-2">
        <input
          type="color"
          aria-label={`${label}: picker`}
          value={normaliseHex(value) ?? fallback}
          onChange={(e) => onChange(e.target.value)}
          className="h-9 w-10 shrink-0 cursor-pointer rounded border border-slate-300 bg-white p-0.5"
        />
        <input
          id={id}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          spellCheck={false}
          autoComplete="off"
          maxLength={7}
          className={`${inputClass} font-mono`}
        />
      </div>
    </div>
  );
}

export function QrDesigner({ value, fileName, logoUrl, settingsHref }: Props) {
  const [open, setOpen] = useState(false);
  const [foreground, setForeground] = useState<string>(DEFAULT_QR_COLOURS.foreground);
  const [background, setBackground] = useState<string>(DEFAULT_QR_COLOURS.background);
  // the last readable pair: a refused pair is never drawn, so what is shown is always downloadable
  const [applied, setApplied] = useState({
    foreground: DEFAULT_QR_COLOURS.foreground as string,
    background: DEFAULT_QR_COLOURS.background as string,
  });
  const [withLogo, setWithLogo] = useState(Boolean(logoUrl));
  const logo = useLogoDataUrl(logoUrl);
  const problem = qrColourProblem(foreground, background);
  const panelId = useId();

  function choose(next: { foreground: string; background: string }) {
    setForeground(next.foreground);
    setBackground(next.background);
    if (!qrColourProblem(next.foreground, next.background))
      setApplied({ foreground: normaliseHex(next.foreground)!, background: normaliseHex(next.background)! });
  }

  const logoShown = withLogo && logo ? logo : null;
  const svg = useMemo(() => {
    const qr = QRCode.create(value, { errorCorrectionLevel: errorCorrectionFor(Boolean(logoShown)) });
    const modules = { size: qr.modules.size, isDark: (r: number, c: number) => Boolean(qr.modules.get(r, c)) };
    return qrSvg(modules, { ...applied, logo: logoShown ? { href: logoShown } : null }, `QR code for ${value}`);
  }, [value, applied, logoShown]);
  const svgUrl = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;

  function downloadPng() {
    const img = new Image();
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = PNG_SIZE;
      const ctx = canvas.getContext("2d")!;
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(img, 0, 0, PNG_SIZE, PNG_SIZE);
      canvas.toBlob((blob) => {
        if (!blob) return;
        const url = URL.createObjectURL(blob);
        const a = document.createElement("a");
        a.href = url;
        a.download = `${fileName}.png`;
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 1000);
      }, "image/png");
    };
    img.src = svgUrl;
  }

  return (
    <div className="flex flex-col items-center gap-3">
      {/* eslint-disable-next-line @next/next/no-img-element */}
      <img
        src={svgUrl}
        alt={`QR code for ${value}`}
        data-testid="qr-image"
        data-logo={logoShown ? "yes" : "no"}
        width={176}
        height={176}
        className="rounded border border-slate-200"
      />
      <div className="flex flex-wrap justify-center gap-2">
        <button type="button" onClick={downloadPng} className={`${secondaryButtonClass} px-2.5 py-1.5 text-xs`}>
          Download PNG
        </button>
        <a href={svgUrl} download={`${fileName}.svg`} className={`${secondaryButtonClass} px-2.5 py-1.5 text-xs`}>
          Download SVG
        </a>
        <button
          type="button"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={() => setOpen(!open)}
          className={`${secondaryButtonClass} px-2.5 py-1.5 text-xs`}
        >
          {open ? "Close designer" : "Design"}
        </button>
      </div>
      {open && (
        <div id={panelId} role="group" aria-label="QR design" className="w-full space-y-3 border-t border-slate-100 pt-3">
          <ColourField
            label="Code colour"
            value={foreground}
            fallback={applied.foreground}
            onChange={(v) => choose({ foreground: v, background })}
          />
          <ColourField
            label="Background colour"
            value={background}
            fallback={applied.background}
            onChange={(v) => choose({ foreground, background: v })}
          />
          {problem && (
            <p
              role="alert"
              data-testid="qr-colour-problem"
              className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-xs text-red-800"
            >
              Not used: {problem}
            </p>
          )}
          {logoUrl ? (
            <label className="flex items-center gap-2 text-sm text-slate-700">
              <input type="checkbox" checked={withLogo} onChange={(e) => setWithLogo(e.target.checked)} className="h-4 w-4" />
              Workspace logo in the centre
            </label>
          ) : (
            <p className="text-xs text-slate-600">
              An owner or admin can add a logo for the centre in{" "}
              <a href={settingsHref} className="font-medium text-brand-700 underline">
                Settings
              </a>
              .
            </p>
          )}
          <button type="button" onClick={() => choose({ ...DEFAULT_QR_COLOURS })} className="text-xs font-medium text-brand-700 underline">
            Reset colours
          </button>
        </div>
      )}
    </div>
  );
}
