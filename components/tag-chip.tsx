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

// Each pair (text-700 or -800 on -50, slate-700 on -100) is above 4.5:1 contrast. `narrow`: a
// phone row's chip, kept short so it stays whole beside the destination's host.
export function TagChip({ name, color = "gray", narrow }: { name: string; color?: string; narrow?: boolean }) {
  return (
    <span
      data-tag={name}
      title={name}
      className={`inline-block ${narrow ? "max-w-[6rem]" : "max-w-[10rem]"} shrink-0 truncate rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${COLOR_CLASS[color] ?? COLOR_CLASS.gray}`}
    >
      {name}
    </span>
  );
}
