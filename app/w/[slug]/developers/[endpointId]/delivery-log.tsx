import Link from "next/link";
import { DELIVERY_STATUSES, type LogDelivery, type LogFilter } from "@/lib/webhooks";
import { Badge, Card, inputClass, secondaryButtonClass } from "@/components/ui";
import { describeOutcome, formatTime } from "../format";
import { RequestBody } from "./request-body";
import { ResendButton } from "./resend-button";

// The delivery log (server component): deliveries newest first, every attempt of each, filterable
// by status and event type with a plain GET form; Resend is the only client part.

const STATUS_TONE = { pending: "amber", delivered: "green", failed: "red", cancelled: "slate" } as const;

export function DeliveryLog({
  slug,
  endpointId,
  log,
  filter,
  eventTypes,
}: {
  slug: string;
  endpointId: number;
  log: { deliveries: LogDelivery[]; nextBefore: number | null };
  filter: LogFilter;
  eventTypes: string[];
}) {
  const base = `/w/${slug}/developers/${endpointId}`;
  const query = (extra: Record<string, string | number | undefined>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries({ status: filter.status, type: filter.type, ...extra }))
      if (v !== undefined && v !== "") p.set(k, String(v));
    const s = p.toString();
    return s ? `${base}?${s}` : base;
  };
  return (
    <Card title="Delivery log">
      <form method="get" action={base} className="mb-4 flex flex-wrap items-end gap-3" aria-label="Filter the delivery log">
        <label className="text-sm">
          <span className="mb-1 block font-medium text-slate-700">Status</span>
          <select name="status" defaultValue={filter.status ?? ""} className={inputClass}>
            <option value="">Any status</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label className="text-sm">
          <span className="mb-1 block font-medium text-slate-700">Event type</span>
          <select name="type" defaultValue={filter.type ?? ""} className={inputClass}>
            <option value="">Any type</option>
            {eventTypes.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <button className={secondaryButtonClass}>Filter</button>
        {(filter.status || filter.type) && (
          <Link href={base} className="text-sm text-brand-600 hover:underline">
            Clear
          </Link>
        )}
      </form>
      {log.deliveries.length === 0 ? (
        <p className="text-sm text-slate-600">
          {filter.status || filter.type ? "No deliveries match." : "No deliveries yet. Press Send test event to try the endpoint."}
        </p>
      ) : (
        <ul className="space-y-4" aria-label="Deliveries">
          {log.deliveries.map((d) => (
            <li key={d.id} className="rounded-md border border-slate-200" data-testid="delivery">
              <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-100 bg-slate-50 px-3 py-2">
                <div className="flex flex-wrap items-center gap-2 text-sm">
                  <span className="font-mono font-medium">{d.event.type}</span>
                  <Badge tone={STATUS_TONE[d.status]}>{d.status}</Badge>
                  <span className="font-mono text-xs text-slate-500">{d.event.id}</span>
                  <span className="text-xs text-slate-500">event at {formatTime(d.event.createdAt)}</span>
                </div>
                <ResendButton slug={slug} endpointId={endpointId} deliveryId={d.id} />
              </div>
              <div className="px-3 py-2 text-xs text-slate-600">
                {d.status === "pending" && d.nextAttemptAt && <p>Next attempt: {formatTime(d.nextAttemptAt)}</p>}
                {d.status === "cancelled" && d.cancelReason && <p>Not sent: {d.cancelReason}.</p>}
                {d.status === "failed" && !d.isTest && <p>All 7 attempts failed; it can still be resent.</p>}
                {d.attemptLog.length === 0 && d.status === "pending" && <p>Waiting for the first attempt.</p>}
              </div>
              {d.attemptLog.length > 0 && (
                <div className="overflow-x-auto">
                  <table className="w-full text-left text-xs">
                    <thead className="text-slate-500">
                      <tr>
                        <th className="px-3 py-1 font-medium">#</th>
                        <th className="px-3 py-1 font-medium">Time</th>
                        <th className="px-3 py-1 font-medium">Duration</th>
                        <th className="px-3 py-1 font-medium">Result</th>
                        <th className="px-3 py-1 font-medium">Answer (first 1 KB)</th>
                      </tr>
                    </thead>
                    <tbody>
                      {d.attemptLog.map((a) => (
                        <tr key={a.id} className="border-t border-slate-100 align-top" data-testid="attempt">
                          <td className="px-3 py-1.5">
                            {a.number}
                            {a.manual && <span className="ml-1 text-slate-500">(manual)</span>}
                          </td>
                          <td className="whitespace-nowrap px-3 py-1.5">{formatTime(a.startedAt)}</td>
                          <td className="px-3 py-1.5">{a.durationMs} ms</td>
                          <td className="px-3 py-1.5">
                            <span className={a.outcome === "delivered" ? "font-medium text-green-700" : "font-medium text-red-700"}>
                              {describeOutcome(a.outcome, a.statusCode)}
                            </span>
                            {a.error && a.outcome !== "http_status" && <p className="mt-0.5 break-all text-slate-500">{a.error}</p>}
                          </td>
                          <td className="px-3 py-1.5">
                            {a.responseBody ? (
                              <details>
                                <summary className="cursor-pointer text-slate-600">{a.responseBody.length} bytes</summary>
                                <pre
                                  tabIndex={0}
                                  className="mt-1 max-h-48 max-w-xl overflow-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 font-mono"
                                >
                                  {a.responseBody}
                                </pre>
                              </details>
                            ) : (
                              <span className="text-slate-400">empty</span>
                            )}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              <RequestBody body={d.event.body} />
            </li>
          ))}
        </ul>
      )}
      {(filter.before || log.nextBefore) && (
        <div className="mt-4 flex justify-between text-sm">
          {filter.before ? (
            <Link href={query({ before: undefined })} className="text-brand-600 hover:underline">
              Newest
            </Link>
          ) : (
            <span />
          )}
          {log.nextBefore && (
            <Link href={query({ before: log.nextBefore })} className="text-brand-600 hover:underline">
              Older deliveries
            </Link>
          )}
        </div>
      )}
    </Card>
  );
}
