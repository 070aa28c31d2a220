import QRCode from "qrcode";

// The QR code for a short URL, made on the server (the `qrcode` package): shown as SVG, and
// downloadable as PNG and SVG from data URLs (no extra route, nothing stored).
export async function QrCode({ value, fileName }: { value: string; fileName: string }) {
  const [svg, png] = await Promise.all([
    QRCode.toString(value, { type: "svg", margin: 1, errorCorrectionLevel: "M", color: { dark: "#0f172a", light: "#ffffff" } }),
    QRCode.toDataURL(value, { type: "image/png", margin: 2, width: 512, errorCorrectionLevel: "M" }),
  ]);
  const svgUrl = `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
  const link = "rounded-md border border-slate-300 bg-white px-3 py-1.5 text-xs font-medium text-slate-700 hover:bg-slate-50";
  return (
    <div className="flex flex-col items-center gap-3">
      {/* eslint-disable-next-line @next/next/no-img-element */}
      <img src={svgUrl} alt={`QR code for ${value}`} width={160} height={160} className="rounded border border-slate-200" />
      <div className="flex gap-2">
        <a href={png} download={`${fileName}.png`} className={link}>
          Download PNG
        </a>
        <a href={svgUrl} download={`${fileName}.svg`} className={link}>
          Download SVG
        </a>
      </div>
    </div>
  );
}
