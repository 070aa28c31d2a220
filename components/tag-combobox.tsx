"use client";
import { useId, useState } from "react";
import { TagChip } from "./tag-chip";

// Tags of a link as a combobox (the ARIA 1.2 editable combobox with a list): the chosen tags as
// coloured chips, a text field that filters the workspace's tags, and "Create “name”" for a name
// that is not a tag yet. A new name is only a name here: the link's create or edit makes the tag,
// and the service decides its colour (lib/tags), so a dialog closed without saving leaves no tag.

export type TagOption = { name: string; color: string };

/** At most this many matches are listed (a workspace may have many tags). */
const SHOWN = 20;
/** The tag name rule's length (lib/tags/schemas.ts TAG_NAME_MAX); the server checks it again. */
const NAME_MAX = 50;

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export function TagCombobox({
  id,
  value,
  onChange,
  options,
  invalid,
  describedBy,
}: {
  /** the text field's id, for its label */
  id: string;
  value: string[];
  onChange: (names: string[]) => void;
  options: TagOption[];
  invalid?: boolean;
  describedBy?: string;
}) {
  const [text, setText] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const listId = useId();
  const typed = text.trim().replace(/,/g, "");
  const chosen = (name: string) => value.some((v) => same(v, name));
  const matches = options.filter((o) => !chosen(o.name) && o.name.toLowerCase().includes(typed.toLowerCase())).slice(0, SHOWN);
  const canCreate = typed !== "" && !options.some((o) => same(o.name, typed)) && !chosen(typed);
  const items: { key: string; name: string; color: string; create: boolean }[] = [
    ...matches.map((o) => ({ key: `tag-${o.name}`, name: o.name, color: o.color, create: false })),
    ...(canCreate ? [{ key: "create", name: typed, color: "gray", create: true }] : []),
  ];
  const shown = open && items.length > 0;
  const activeIndex = Math.min(active, items.length - 1);
  const colorOf = (name: string) => options.find((o) => same(o.name, name))?.color ?? "gray";
  const optionId = (i: number) => `${listId}-option-${i}`;

  function add(name: string) {
    const existing = options.find((o) => same(o.name, name));
    const n = existing?.name ?? name.trim();
    if (n && !chosen(n)) onChange([...value, n]);
    setText("");
    setActive(0);
  }
  const remove = (name: string) => onChange(value.filter((v) => v !== name));

  function onKeyDown(e: React.KeyboardEvent<HTMLInputElement>) {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      setOpen(true);
      if (items.length) setActive((activeIndex + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length);
    } else if (e.key === "Enter" || e.key === ",") {
      // Enter picks a tag instead of submitting the form while something is typed or listed
      if (shown || typed) {
        e.preventDefault();
        if (shown) add(items[activeIndex].name);
        else if (typed) add(typed);
      }
    } else if (e.key === "Escape" && shown) {
      // close the list only; the dialog around it stays open
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
    } else if (e.key === "Backspace" && text === "" && value.length) {
      remove(value[value.length - 1]);
    }
  }

  return (
    <div className="relative">
      <div
        className={`flex min-h-[2.375rem] flex-wrap items-center gap-1.5 rounded-md border bg-white px-2 py-1 shadow-sm focus-within:border-brand-500 focus-within:ring-1 focus-within:ring-brand-500 ${invalid ? "border-red-400" : "border-slate-300"}`}
      >
        {value.map((name) => (
          <span key={name} className="inline-flex items-center gap-0.5">
            <TagChip name={name} color={colorOf(name)} />
            <button
              type="button"
              onClick={() => remove(name)}
              aria-label={`Remove tag ${name}`}
              className="rounded p-0.5 text-slate-500 hover:bg-slate-100 hover:text-slate-800"
            >
              <svg aria-hidden width="12" height="12" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="2.2">
                <path d="M5 5l10 10M15 5L5 15" />
              </svg>
            </button>
          </span>
        ))}
        <input
          id={id}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={shown}
          aria-controls={listId}
          aria-activedescendant={shown ? optionId(activeIndex) : undefined}
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          value={text}
          maxLength={NAME_MAX}
          autoComplete="off"
          placeholder={value.length ? "" : "Add tags"}
          onChange={(e) => {
            setText(e.target.value);
            setActive(0);
            setOpen(true);
          }}
          onFocus={() => setOpen(true)}
          onClick={() => setOpen(true)}
          // a name typed and left is kept, as a comma-separated field kept it
          onBlur={() => {
            if (typed) add(typed);
            setOpen(false);
          }}
          onKeyDown={onKeyDown}
          className="min-w-[6rem] flex-1 border-0 bg-transparent p-1 text-sm outline-none focus:ring-0"
        />
      </div>
      <ul
        id={listId}
        role="listbox"
        aria-label="Tag suggestions"
        hidden={!shown}
        className="absolute z-20 mt-1 max-h-56 w-full overflow-y-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg"
      >
        {items.map((item, i) => (
          <li
            key={item.key}
            id={optionId(i)}
            role="option"
            aria-selected={i === activeIndex}
            // mousedown, not click: the field's blur would otherwise close the list first
            onMouseDown={(e) => {
              e.preventDefault();
              add(item.name);
            }}
            onMouseEnter={() => setActive(i)}
            className={`flex cursor-pointer items-center gap-2 px-3 py-1.5 ${i === activeIndex ? "bg-slate-100" : ""}`}
          >
            {item.create ? (
              <span>
                Create <span className="font-medium">“{item.name}”</span>
              </span>
            ) : (
              <TagChip name={item.name} color={item.color} />
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
