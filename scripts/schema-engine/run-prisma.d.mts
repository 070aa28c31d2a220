// Types for run-prisma.mjs (the TypeScript config does not check plain JS).
export const root: string;
export const engineBinary: string;
export function runPrisma(args: string[], env?: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }>;
