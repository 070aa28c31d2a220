// The QR designer's rules (components/qr-designer.tsx), pure and browser-safe: which colour pairs a
// scanner reads, how large a logo may be and what error correction it needs, and the SVG that is
// both shown and downloaded.

/** WCAG's contrast ratio for normal text: below it, dark and light modules blur together for a camera too. */
export const MIN_QR_CONTRAST = 4.5;
/** The logo's box, as a share of the code's width: 0.3 x 0.3 = 9 % of the area, well inside what level H restores (about 30 %). */
export const LOGO_SHARE = 0.3;
export const DEFAULT_QR_COLOURS = { foreground: "#0f172a", background: "#ffffff" } as const;

/** "#abc", "abc", "#AABBCC" -> "#aabbcc"; anything else -> null. */
export function normaliseHex(input: string): string | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(input.trim());
  if (!m) return null;
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join("") : m[1];
  return `#${hex.toLowerCase()}`;
}

/** WCAG 2 relative luminance of a "#rrggbb" colour (0 black to 1 white). */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two "#rrggbb" colours, from 1 (same) to 21 (black on white). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * Why a scanner may not read a code of these colours, in words, or null when the pair is readable:
 * both must be colours, the code darker than its background (many scanners look for dark modules
 * on a light ground and fail on inverted codes), and their contrast at least MIN_QR_CONTRAST.
 */
export function qrColourProblem(foreground: string, background: string): string | null {
  const fg = normaliseHex(foreground);
  const bg = normaliseHex(background);
  if (!fg) return `"${foreground}" is not a colour: write it as # and six hex digits, such as #0f172a.`;
  if (!bg) return `"${background}" is not a colour: write it as # and six hex digits, such as #ffffff.`;
  if (relativeLuminance(fg) >= relativeLuminance(bg))
    return "The code must be darker than its background: many scanners cannot read a light code on a dark background.";
  const ratio = contrastRatio(fg, bg);
  if (ratio < MIN_QR_CONTRAST)
    return `The two colours are too alike for a scanner (contrast ${ratio.toFixed(1)}:1; at least ${MIN_QR_CONTRAST}:1 is needed). Make the code darker or the background lighter.`;
  return null;
}

/** Error correction: H (about 30 % of the code can be lost) when a logo covers its centre, else M. */
export const errorCorrectionFor = (withLogo: boolean): "H" | "M" => (withLogo ? "H" : "M");

export type QrModules = { size: number; isDark: (row: number, col: number) => boolean };
export type QrDesign = { foreground: string; background: string; logo?: { href: string } | null };

/** Quiet zone around the code, in modules. */
const MARGIN = 2;

/**
 * The code as an SVG document: a background square, the dark modules as one path, and the logo
 * (a data URL) on a background-coloured pad in the centre. The same text is shown and downloaded,
 * and the PNG is drawn from it.
 */
export function qrSvg(modules: QrModules, design: QrDesign, title: string): string {
  const { size } = modules;
  const full = size + 2 * MARGIN;
  let path = "";
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) if (modules.isDark(r, c)) path += `M${c + MARGIN} ${r + MARGIN}h1v1h-1z`;
  let logo = "";
  if (design.logo) {
    const box = Math.round(size * LOGO_SHARE);
    const at = (full - box) / 2;
    const pad = 0.5;
    logo =
      `<rect x="${at - pad}" y="${at - pad}" width="${box + 2 * pad}" height="${box + 2 * pad}" rx="1" fill="${design.background}"/>` +
      `<image x="${at}" y="${at}" width="${box}" height="${box}" preserveAspectRatio="xMidYMid meet" href="${escapeAttribute(design.logo.href)}"/>`;
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${full} ${full}" shape-rendering="crispEdges">` +
    `<title>${escapeText(title)}</title>` +
    `<rect width="${full}" height="${full}" fill="${design.background}"/>` +
    `<path fill="${design.foreground}" d="${path}"/>` +
    logo +
    `</svg>`
  );
}

const escapeText = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttribute = (s: string) => escapeText(s).replace(/"/g, "&quot;");
