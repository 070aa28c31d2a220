import QRCode from "qrcode";
import { describe, expect, it } from "vitest";
import {
  contrastRatio,
  errorCorrectionFor,
  LOGO_SHARE,
  MIN_QR_CONTRAST,
  normaliseHex,
  qrColourProblem,
  qrSvg,
} from "../../lib/qr/design.ts";

describe("QR colour rule", () => {
  it("contrast ratio follows WCAG 2: black on white 21, a colour against itself 1", () => {
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrastRatio("#ffffff", "#000000")).toBeCloseTo(21, 5);
    expect(contrastRatio("#777777", "#777777")).toBe(1);
    // the WCAG example pair: #767676 on white is just above 4.5
    expect(contrastRatio("#767676", "#ffffff")).toBeGreaterThan(MIN_QR_CONTRAST);
    expect(contrastRatio("#777777", "#ffffff")).toBeLessThan(MIN_QR_CONTRAST);
  });

  it("accepts dark codes on light backgrounds with enough contrast", () => {
    expect(qrColourProblem("#0f172a", "#ffffff")).toBeNull();
    expect(qrColourProblem("#1d4ed8", "#fef3c7")).toBeNull();
    expect(qrColourProblem("#000", "#FFF")).toBeNull();
  });

  it("refuses a light code on a dark background, in words", () => {
    expect(qrColourProblem("#ffffff", "#000000")).toMatch(/darker than its background/);
  });

  it("refuses colours too alike, naming the measured contrast and the minimum", () => {
    const problem = qrColourProblem("#999999", "#ffffff");
    expect(problem).toMatch(/too alike/);
    expect(problem).toContain("2.8:1");
    expect(problem).toContain("4.5:1");
    expect(qrColourProblem("#777777", "#777777")).toMatch(/darker/);
  });

  it("refuses text that is not a colour", () => {
    expect(qrColourProblem("red", "#ffffff")).toMatch(/"red" is not a colour/);
    expect(normaliseHex("#ABC")).toBe("#aabbcc");
    expect(normaliseHex("12345")).toBeNull();
  });
});

describe("QR SVG", () => {
  const modules = (withLogo: boolean) => {
    const qr = QRCode.create("http://localhost:3000/abc?qr=1", { errorCorrectionLevel: errorCorrectionFor(withLogo) });
    return { qr, m: { size: qr.modules.size, isDark: (r: number, c: number) => Boolean(qr.modules.get(r, c)) } };
  };

  it("draws the chosen colours, and no logo unless given", () => {
    const { m } = modules(false);
    const svg = qrSvg(m, { foreground: "#1d4ed8", background: "#fef3c7" }, "QR code for x");
    expect(svg).toContain('fill="#1d4ed8"');
    expect(svg).toContain('fill="#fef3c7"');
    expect(svg).not.toContain("<image");
    expect(svg).toContain("<title>QR code for x</title>");
  });

  it("a logo raises error correction to H and covers under a fifth of the code", () => {
    const { qr, m } = modules(true);
    expect(qr.errorCorrectionLevel.bit).toBe(QRCode.create("x", { errorCorrectionLevel: "H" }).errorCorrectionLevel.bit);
    const svg = qrSvg(m, { foreground: "#000000", background: "#ffffff", logo: { href: 'data:image/png;base64,AA"<' } }, "t");
    expect(svg).toContain('href="data:image/png;base64,AA&quot;&lt;"');
    const width = Number(/<image[^>]* width="([\d.]+)"/.exec(svg)![1]);
    expect((width * width) / (m.size * m.size)).toBeLessThan(0.2);
    expect(width / m.size).toBeCloseTo(LOGO_SHARE, 1);
  });
});
