// A tag as a small coloured chip. Class names are spelled out so Tailwind keeps them.
const COLOR_CLASS: Record<string, string> = {
  gray: "bg-slate-100 text-slate-700 ring-slate-200",
  red: "bg-red-50 text-red-700 ring-red-200",
  orange: "bg-orange-50 text-orange-700 ring-orange-200",
  yellow: "bg-yellow-50 text-yellow-800 ring-yellow-200",
  green: "bg-green-50 text-green-700 ring-green-200",
  teal: "bg-teal-50 text-teal-700 ring-teal-200",
  blue: "bg-blue-50 text-blue-700 ring-blue-200",
  purple: "bg-purple-50 text-purple-700 ring-purple-200",
  pink: "bg-pink-50 text-pink-700 ring-pink-200",
};

export function TagChip({ name, color = "gray" }: { name: string; color?: string }) {
  return (
    <span
      data-tag={name}
      className={`inline-flex max-w-[10rem] items-center truncate rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${COLOR_CLASS[color] ?? COLOR_CLASS.gray}`}
    >
      {name}
    </span>
  );
}
