"use client";
import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { Card, offscreenCardClass } from "@/components/ui";

// One card of related analytics panels (Countries, Cities and Languages; the UTM fields; ...) as
// tabs, so the Analytics page shows six cards where it would show fourteen tables. Only the chosen
// tab's table is rendered: the others arrive with the page (switching is instant) but cost the
// browser nothing until chosen. The choice stays while the range or the filters change.
// Keyboard: the WAI-ARIA tabs pattern (arrows, Home, End; the tab list is one tab stop).

export type PanelTab = {
  /** the panel's name (lib/analytics/reports/report.ts Panel) */
  id: string;
  label: string;
  /** the accessible name when the visible label is shortened by the card's title ("Source" under "UTM") */
  name?: string;
  /** the card's action while this tab is chosen (its "View all"), or null */
  action: ReactNode;
  content: ReactNode;
};

export function PanelTabs({ title, tabs }: { title: string; tabs: PanelTab[] }) {
  const [chosen, setChosen] = useState(0);
  const active = Math.min(chosen, tabs.length - 1);
  const id = useId();
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const tab = tabs[active];

  function onKeyDown(e: KeyboardEvent) {
    const last = tabs.length - 1;
    const next = { ArrowRight: active + 1, ArrowLeft: active - 1, Home: 0, End: last }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    const i = next < 0 ? last : next > last ? 0 : next;
    setChosen(i);
    buttons.current[i]?.focus();
  }

  return (
    <Card title={title} actions={tab.action} className={offscreenCardClass}>
      <div role="tablist" aria-label={title} className="mb-3 flex flex-wrap gap-1 border-b border-slate-200" onKeyDown={onKeyDown}>
        {tabs.map((t, i) => (
          <button
            key={t.id}
            ref={(el) => {
              buttons.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`${id}-tab-${t.id}`}
            aria-controls={`${id}-panel`}
            aria-selected={i === active}
            aria-label={t.name}
            tabIndex={i === active ? 0 : -1}
            onClick={() => setChosen(i)}
            className={`-mb-px border-b-2 px-2.5 py-1.5 text-sm font-medium ${
              i === active ? "border-brand-600 text-brand-700" : "border-transparent text-slate-600 hover:text-slate-900"
            }`}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${tab.id}`}>
        {tab.content}
      </div>
    </Card>
  );
}
