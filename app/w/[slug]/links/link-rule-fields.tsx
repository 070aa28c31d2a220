"use client";
import { DEVICES, MAX_RULES, OPERATING_SYSTEMS } from "@/lib/links/routing-schema";
import { Field, inputClass, secondaryButtonClass } from "@/components/ui";
import { emptyRuleRow, type RuleRow } from "./routing-values";
import { PlanLine, useRoutingSetter, RoutingSection, type RoutingSectionProps } from "./routing-section";
import { RuleTester } from "./rule-tester";

const DEVICE_LABEL: Record<string, string> = { desktop: "Desktop", mobile: "Phone", tablet: "Tablet", other: "Other" };
const OS_LABEL: Record<string, string> = {
  ios: "iOS",
  android: "Android",
  windows: "Windows",
  macos: "macOS",
  linux: "Linux",
  other: "Other",
};

/** Ordered redirect rules (the first whose every condition matches wins) and the visitor tester. */
export function LinkRuleFields(props: RoutingSectionProps) {
  const { v, id, err, ctx, upgrade, slug } = props;
  const setRouting = useRoutingSetter(props);
  const rules = v.routing.rules;
  const put = (list: RuleRow[]) => setRouting("rules", list);
  const change = (key: number, patch: Partial<RuleRow>) => put(rules.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const move = (i: number, by: number) => {
    const next = [...rules];
    [next[i], next[i + by]] = [next[i + by], next[i]];
    put(next);
  };
  const toggle = (list: string[], value: string, on: boolean) => (on ? [...list, value] : list.filter((x) => x !== value));
  const locked = !ctx.features.redirectRules && rules.length === 0;

  return (
    <RoutingSection
      title="Rules"
      about="Send visitors who match every condition of a rule to its URL. The first matching rule wins; then targeting, the A/B split, the destination."
      error={err("rules")}
      errorId={`${id("rules")}-error`}
      testId="routing-rules"
    >
      {locked ? (
        <PlanLine>{upgrade("Redirect rules are not in your plan.")}</PlanLine>
      ) : (
        <>
          <ol className="space-y-4" aria-label="Rules">
            {rules.map((r, i) => {
              const n = i + 1;
              const rid = (name: string) => id(`rule-${r.key}-${name}`);
              return (
                <li key={r.key} className="space-y-3 rounded-md border border-slate-200 p-3" data-testid="rule-row">
                  <div className="flex flex-wrap items-center justify-between gap-2">
                    <h3 className="text-sm font-medium">Rule {n}</h3>
                    <div className="flex gap-2">
                      <button
                        type="button"
                        className={secondaryButtonClass}
                        disabled={i === 0}
                        onClick={() => move(i, -1)}
                        aria-label={`Move rule ${n} up`}
                      >
                        Up
                      </button>
                      <button
                        type="button"
                        className={secondaryButtonClass}
                        disabled={i === rules.length - 1}
                        onClick={() => move(i, 1)}
                        aria-label={`Move rule ${n} down`}
                      >
                        Down
                      </button>
                      <button
                        type="button"
                        className={secondaryButtonClass}
                        onClick={() => put(rules.filter((x) => x.key !== r.key))}
                        aria-label={`Remove rule ${n}`}
                      >
                        Remove
                      </button>
                    </div>
                  </div>
                  <Field label={`Rule ${n} URL`} htmlFor={rid("url")}>
                    <input
                      id={rid("url")}
                      type="url"
                      inputMode="url"
                      value={r.url}
                      placeholder="https://example.com/de"
                      onChange={(e) => change(r.key, { url: e.target.value })}
                      className={inputClass}
                    />
                  </Field>
                  <div className="grid gap-3 sm:grid-cols-3">
                    <Field label={`Rule ${n} countries`} htmlFor={rid("countries")} hint="Codes such as DE, AT">
                      <input
                        id={rid("countries")}
                        value={r.countries}
                        onChange={(e) => change(r.key, { countries: e.target.value })}
                        className={inputClass}
                      />
                    </Field>
                    <Field label={`Rule ${n} languages`} htmlFor={rid("languages")} hint="Such as de, fr">
                      <input
                        id={rid("languages")}
                        value={r.languages}
                        onChange={(e) => change(r.key, { languages: e.target.value })}
                        className={inputClass}
                      />
                    </Field>
                    <Field label={`Rule ${n} query`} htmlFor={rid("query")} hint="Such as ref=mail or promo (any value)">
                      <input
                        id={rid("query")}
                        value={r.query}
                        onChange={(e) => change(r.key, { query: e.target.value })}
                        className={inputClass}
                      />
                    </Field>
                  </div>
                  <div className="grid gap-3 sm:grid-cols-2">
                    <fieldset>
                      <legend className="text-sm font-medium text-slate-700">Rule {n} devices</legend>
                      <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
                        {DEVICES.map((d) => (
                          <label key={d} className="flex items-center gap-1.5 text-sm">
                            <input
                              type="checkbox"
                              checked={r.devices.includes(d)}
                              onChange={(e) => change(r.key, { devices: toggle(r.devices, d, e.target.checked) })}
                              className="h-4 w-4 rounded border-slate-300"
                            />
                            {DEVICE_LABEL[d]}
                          </label>
                        ))}
                      </div>
                    </fieldset>
                    <fieldset>
                      <legend className="text-sm font-medium text-slate-700">Rule {n} operating systems</legend>
                      <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
                        {OPERATING_SYSTEMS.map((o) => (
                          <label key={o} className="flex items-center gap-1.5 text-sm">
                            <input
                              type="checkbox"
                              checked={r.os.includes(o)}
                              onChange={(e) => change(r.key, { os: toggle(r.os, o, e.target.checked) })}
                              className="h-4 w-4 rounded border-slate-300"
                            />
                            {OS_LABEL[o]}
                          </label>
                        ))}
                      </div>
                    </fieldset>
                  </div>
                  {Object.keys(r.kept).length > 0 && (
                    <p className="text-xs text-slate-500">This rule also has time conditions set through the API; they are kept.</p>
                  )}
                </li>
              );
            })}
          </ol>
          <button
            type="button"
            className={secondaryButtonClass}
            disabled={rules.length >= MAX_RULES || !ctx.features.redirectRules}
            onClick={() => put([...rules, emptyRuleRow()])}
          >
            Add rule
          </button>
          {!ctx.features.redirectRules && (
            <p className="text-xs">{upgrade("Redirect rules are not in your plan: remove them to save other changes.")}</p>
          )}
          <RuleTester v={v} slug={slug} id={id} />
        </>
      )}
    </RoutingSection>
  );
}
