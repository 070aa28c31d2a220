"use client";
import { MAX_VARIANTS, MIN_VARIANTS } from "@/lib/links/routing-schema";
import { inputClass, secondaryButtonClass } from "@/components/ui";
import { evenWeights, nextRowKey, setWeight, type VariantRow } from "./routing-values";
import { PlanLine, useRoutingSetter, RoutingSection, type RoutingSectionProps } from "./routing-section";

/**
 * The A/B split: 2 to 10 destinations with whole-number weights. Every change keeps the sum at 100
 * (routing-values.ts setWeight): adding or removing a variant shares 100 out evenly again; typing or
 * dragging one weight moves the others in proportion.
 */
export function LinkVariantFields(props: RoutingSectionProps) {
  const { v, id, err, ctx, upgrade, described } = props;
  const setRouting = useRoutingSetter(props);
  const rows = v.routing.variants;
  const withWeights = (list: VariantRow[], weights = evenWeights(list.length)) => list.map((r, i) => ({ ...r, weight: weights[i] }));
  const put = (list: VariantRow[]) => setRouting("variants", list);
  const total = rows.reduce((s, r) => s + r.weight, 0);
  const locked = !ctx.features.abTesting && rows.length === 0;

  return (
    <RoutingSection
      title="A/B split"
      about="Send each new visitor to one of several destinations by weight; a returning visitor keeps theirs."
      error={err("variants")}
      errorId={`${id("variants")}-error`}
      testId="routing-variants"
    >
      {locked ? (
        <PlanLine>{upgrade("A/B splits are not in your plan.")}</PlanLine>
      ) : rows.length === 0 ? (
        <button
          type="button"
          className={secondaryButtonClass}
          onClick={() =>
            put(
              withWeights([
                { key: nextRowKey(), url: v.url, weight: 0 },
                { key: nextRowKey(), url: "", weight: 0 },
              ]),
            )
          }
        >
          Split traffic
        </button>
      ) : (
        <>
          <ol className="space-y-3" aria-label="Variants">
            {rows.map((r, i) => (
              <li key={r.key} className="flex flex-wrap items-center gap-2" data-testid="variant-row">
                <input
                  aria-label={`URL of variant ${i + 1}`}
                  type="url"
                  inputMode="url"
                  value={r.url}
                  placeholder="https://example.com/landing-b"
                  onChange={(e) => put(rows.map((x) => (x.key === r.key ? { ...x, url: e.target.value } : x)))}
                  className={`${inputClass} min-w-0 flex-[1_1_16rem]`}
                  {...described("variants")}
                />
                <input
                  aria-label={`Weight slider of variant ${i + 1}`}
                  type="range"
                  min={1}
                  max={100 - (rows.length - 1)}
                  value={r.weight}
                  onChange={(e) =>
                    put(
                      withWeights(
                        rows,
                        setWeight(
                          rows.map((x) => x.weight),
                          i,
                          Number(e.target.value),
                        ),
                      ),
                    )
                  }
                  className="w-28 accent-brand-600"
                />
                <span className="flex items-center gap-1">
                  <input
                    aria-label={`Weight of variant ${i + 1} (percent)`}
                    type="number"
                    min={1}
                    max={100 - (rows.length - 1)}
                    value={r.weight}
                    onChange={(e) => {
                      if (e.target.value === "") return;
                      put(
                        withWeights(
                          rows,
                          setWeight(
                            rows.map((x) => x.weight),
                            i,
                            Number(e.target.value),
                          ),
                        ),
                      );
                    }}
                    className={`${inputClass} w-20`}
                  />
                  <span className="text-sm text-slate-500">%</span>
                </span>
                <button
                  type="button"
                  className={secondaryButtonClass}
                  disabled={rows.length <= MIN_VARIANTS}
                  onClick={() => put(withWeights(rows.filter((x) => x.key !== r.key)))}
                  aria-label={`Remove variant ${i + 1}`}
                >
                  Remove
                </button>
              </li>
            ))}
          </ol>
          <div className="flex flex-wrap items-center gap-2">
            <button
              type="button"
              className={secondaryButtonClass}
              disabled={rows.length >= MAX_VARIANTS}
              onClick={() => put(withWeights([...rows, { key: nextRowKey(), url: "", weight: 0 }]))}
            >
              Add variant
            </button>
            <button type="button" className={secondaryButtonClass} onClick={() => put([])}>
              Stop splitting
            </button>
            <p className="text-sm text-slate-600" data-testid="variant-total" aria-live="polite">
              Total: {total}%
            </p>
          </div>
          {!ctx.features.abTesting && (
            <p className="text-xs">{upgrade("A/B splits are not in your plan: remove it to save other changes.")}</p>
          )}
        </>
      )}
    </RoutingSection>
  );
}
