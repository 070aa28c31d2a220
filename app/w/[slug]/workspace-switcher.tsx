"use client";
import { useRouter } from "next/navigation";

export function WorkspaceSwitcher({ current, workspaces }: { current: string; workspaces: { slug: string; name: string }[] }) {
  const router = useRouter();
  return (
    <select
      aria-label="Workspace"
      value={current}
      onChange={(e) => router.push(e.target.value === "__new" ? "/w/new" : `/w/${e.target.value}`)}
      className="w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm font-medium"
    >
      {workspaces.map((w) => (
        <option key={w.slug} value={w.slug}>
          {w.name}
        </option>
      ))}
      <option value="__new">+ New workspace</option>
    </select>
  );
}
