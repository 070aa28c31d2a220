// Country names for ISO 3166 alpha-2 codes, from the runtime's own Unicode data (Intl), in English.
const names = new Intl.DisplayNames(["en"], { type: "region", fallback: "code" });

export function countryName(code: string | null): string | null {
  if (!code) return null;
  try {
    return names.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}
