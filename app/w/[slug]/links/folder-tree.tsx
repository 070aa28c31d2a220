import Link from "next/link";

// Folders are slash paths ("marketing/2026"); shown as a tree with link counts that include
// subfolders. Choosing one filters the table to that folder and everything below it.

type Node = { name: string; path: string; own: number; total: number; children: Node[] };

export function buildFolderTree(folders: { folder: string; count: number }[]): Node {
  const root: Node = { name: "", path: "", own: 0, total: 0, children: [] };
  for (const { folder, count } of folders) {
    root.total += count;
    if (!folder) {
      root.own += count;
      continue;
    }
    let node = root;
    const parts = folder.split("/");
    parts.forEach((name, i) => {
      const path = parts.slice(0, i + 1).join("/");
      let child = node.children.find((c) => c.name === name);
      if (!child) {
        child = { name, path, own: 0, total: 0, children: [] };
        node.children.push(child);
        node.children.sort((a, b) => a.name.localeCompare(b.name));
      }
      child.total += count;
      if (i === parts.length - 1) child.own += count;
      node = child;
    });
  }
  return root;
}

export function FolderTree({
  slug,
  folders,
  current,
  q,
}: {
  slug: string;
  folders: { folder: string; count: number }[];
  current: string;
  q: string;
}) {
  const root = buildFolderTree(folders);
  const href = (path: string) => {
    const p = new URLSearchParams();
    if (path) p.set("folder", path);
    if (q) p.set("q", q);
    const s = p.toString();
    return `/w/${slug}/links${s ? `?${s}` : ""}`;
  };
  const item = (label: React.ReactNode, path: string, count: number, depth: number) => {
    const active = current === path;
    return (
      <Link
        href={href(path)}
        aria-current={active ? "page" : undefined}
        className={`flex items-center justify-between gap-2 rounded-md py-1.5 pr-2 text-sm ${active ? "bg-brand-50 font-medium text-brand-700" : "text-slate-700 hover:bg-slate-100"}`}
        style={{ paddingLeft: `${0.5 + depth * 0.85}rem` }}
      >
        <span className="flex min-w-0 items-center gap-1.5">
          <svg aria-hidden className="h-4 w-4 shrink-0 text-slate-400" viewBox="0 0 20 20" fill="currentColor">
            <path d="M2 5.5A1.5 1.5 0 0 1 3.5 4h4l1.5 2h7.5A1.5 1.5 0 0 1 18 7.5v7a1.5 1.5 0 0 1-1.5 1.5h-13A1.5 1.5 0 0 1 2 14.5z" />
          </svg>
          <span className="truncate">{label}</span>
        </span>
        <span className="text-xs text-slate-600">{count}</span>
      </Link>
    );
  };
  const render = (nodes: Node[], depth: number): React.ReactNode =>
    nodes.length ? (
      <ul>
        {nodes.map((n) => (
          <li key={n.path}>
            {item(n.name, n.path, n.total, depth)}
            {render(n.children, depth + 1)}
          </li>
        ))}
      </ul>
    ) : null;
  const tree = (
    <>
      {item("All links", "", root.total, 0)}
      {render(root.children, 1)}
    </>
  );
  // One landmark: the phone's disclosure and the wide screen's list are two views of it (only one
  // is displayed at a time).
  return (
    <nav aria-label="Folders">
      <details className="rounded-lg border border-slate-200 bg-white p-2 lg:hidden" open={!!current}>
        <summary className="cursor-pointer px-2 py-1 text-sm font-medium">Folders{current ? `: ${current}` : ""}</summary>
        <div className="mt-1">{tree}</div>
      </details>
      <div className="hidden rounded-lg border border-slate-200 bg-white p-2 lg:block">
        <p className="px-2 pb-1 pt-1 text-xs font-semibold uppercase tracking-wide text-slate-600">Folders</p>
        {tree}
      </div>
    </nav>
  );
}
