import Link from "next/link";

export default function NotFound() {
  return (
    <main id="main" tabIndex={-1} className="flex min-h-screen flex-col items-center justify-center gap-3 px-4 text-center">
      <h1 className="text-2xl font-semibold">Page not found</h1>
      <p className="text-sm text-slate-600">It does not exist, or you do not have access to it.</p>
      <Link href="/" className="text-sm font-medium text-brand-600 hover:underline">
        Go home
      </Link>
    </main>
  );
}
