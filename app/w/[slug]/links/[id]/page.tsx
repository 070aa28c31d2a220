import type { Metadata } from "next";
import { formatDateTime, fromUnixSeconds } from "@/components/dates";
import Link from "next/link";
import { notFound } from "next/navigation";
import { parseIdParam } from "@/lib/http/params";
import { AnalyticsView } from "@/components/analytics/analytics-view";
import { CopyButton } from "@/components/copy-button";
import { QrDesigner } from "@/components/qr-designer";
import { qrUrl } from "@/lib/analytics/ingest/qr";
import { analyticsReport, isPanel, pageParams, PANEL_ROWS_ALL, type Panel } from "@/lib/analytics/reports/report";
import { analytics } from "@/lib/analytics/reports/service";
import { MAX_VARIANTS } from "@/lib/links/routing-schema";
import { Badge, buttonClass, Card } from "@/components/ui";
import { denylistedDestinations } from "@/lib/links";
import { workspacePage } from "@/lib/actions/workspace";
import { linkById } from "@/lib/links/views";
import { listTags } from "@/lib/tags";
import { TagChip } from "@/components/tag-chip";
import { linkState } from "../link-state";
import { DeleteLinkButton } from "./delete-button";
import { VariantFigures } from "./variant-figures";
import { ScanFigures } from "./scan-figures";
import { workspaceLogoVersion } from "@/lib/workspaces/logo";

export const metadata: Metadata = { title: "Link" };

const when = (unix: number | null) => formatDateTime(fromUnixSeconds(unix));

/** The analytics panels of one link (the workspace's others, links, tags and UTM values, are one row here). */
const LINK_PANELS: Panel[] = ["countries", "cities", "referrers", "devices", "browsers", "os", "qr", "languages", "destinations"];

export default async function LinkPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string; id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { slug, id } = await params;
  const { workspace } = await workspacePage(slug);
  const link = await linkById(workspace.id, parseIdParam(id) ?? 0);
  if (!link) notFound();
  const search = await searchParams;
  const all = isPanel(search.all) && LINK_PANELS.includes(search.all) ? search.all : null;
  const [report, tags, logoVersion] = await Promise.all([
    analyticsReport(
      workspace,
      { ...pageParams(search), link: link.code, domain: link.domain },
      all ? { panels: [all], rows: PANEL_ROWS_ALL } : { panels: LINK_PANELS },
    ),
    link.tags.length ? listTags(workspace) : Promise.resolve([]),
    workspaceLogoVersion(workspace.id),
  ]);
  // QR scans apart from the other clicks, over the same range and filters
  const scans = report.problem ? null : await analytics(workspace, { ...report.input, groupBy: "qr", limit: 2 });
  // the A/B split's figures: clicks and visitors per destination over the report's own range and filters
  const perDestination =
    link.variants && !report.problem
      ? await analytics(workspace, { ...report.input, groupBy: "destinations", limit: MAX_VARIANTS * 2 })
      : null;
  const colorOf = new Map(tags.map((t) => [t.name.toLowerCase(), t.color]));
  const state = linkState(link);
  const shortText = link.short.replace(/^https?:\/\//, "");
  const geo = Object.entries(link.targeting?.geo ?? {});
  const denied = denylistedDestinations(link);

  const details: [string, React.ReactNode][] = [
    [
      "Destination",
      <a key="u" href={link.url} className="break-all text-brand-700 hover:underline" rel="noreferrer" target="_blank">
        {link.url}
      </a>,
    ],
    ["Domain", link.domain],
    ["Folder", link.folder || "Top level"],
    [
      "Tags",
      link.tags.length ? (
        <span key="tags" className="flex flex-wrap gap-1">
          {link.tags.map((t) => (
            <Link key={t} href={`/w/${slug}/links?tag=${encodeURIComponent(t)}`} title={`Links tagged ${t}`}>
              <TagChip name={t} color={colorOf.get(t.toLowerCase())} />
            </Link>
          ))}
        </span>
      ) : (
        "None"
      ),
    ],
    ["Notes", link.notes || "—"],
    ["Starts", when(link.startsOn)],
    ["Expires", when(link.expiresOn)],
    ["Maximum clicks", link.maxClicks?.toLocaleString("en") ?? "No limit"],
    [
      "Fallback URL",
      link.fallbackUrl ? (
        <span key="f" className="break-all">
          {link.fallbackUrl}
        </span>
      ) : (
        "—"
      ),
    ],
    ["Password", link.hasPassword ? "Required" : "None"],
    [
      "Targeting",
      link.targeting ? (
        <ul key="t" className="space-y-0.5">
          {link.targeting.ios && <li className="break-all">iOS → {link.targeting.ios}</li>}
          {link.targeting.android && <li className="break-all">Android → {link.targeting.android}</li>}
          {geo.map(([cc, url]) => (
            <li key={cc} className="break-all">
              {cc} → {url}
            </li>
          ))}
        </ul>
      ) : (
        "None"
      ),
    ],
  ];

  return (
    <>
      <div className="mb-6">
        <Link href={`/w/${slug}/links`} className="text-sm font-medium text-brand-600 hover:underline">
          ← All links
        </Link>
        <div className="mt-3 flex flex-wrap items-start justify-between gap-4">
          <div className="min-w-0">
            <h1 className="break-all text-2xl font-semibold tracking-tight">{shortText}</h1>
            {link.title && <p className="mt-1 text-slate-700">{link.title}</p>}
            <div className="mt-2 flex flex-wrap items-center gap-2">
              <CopyButton value={link.short} label="Copy short URL" what="Short URL" />
              <Badge tone={state.tone}>{state.label}</Badge>
              <span className="text-xs text-slate-500">Created {when(link.createdOn)}</span>
            </div>
          </div>
          <div className="flex gap-2">
            <Link href={`/w/${slug}/links/${link.id}/edit`} className={buttonClass}>
              Edit
            </Link>
            <DeleteLinkButton slug={slug} id={link.id} short={link.short} />
          </div>
        </div>
      </div>

      {denied.length > 0 && (
        <div
          role="alert"
          data-testid="link-denylisted"
          className="mb-6 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800"
        >
          <p className="font-medium">This link is blocked: visitors see a &ldquo;Link blocked&rdquo; page instead of being redirected.</p>
          <p className="mt-1">
            This service no longer sends visitors to {[...new Set(denied.map((d) => d.host))].join(", ")} (
            {denied.map((d) => d.field).join(", ")}). Change {denied.length === 1 ? "that destination" : "those destinations"} to edit the
            link, or delete it.
          </p>
        </div>
      )}
      <div className="grid gap-6 lg:grid-cols-[1fr_18rem]">
        <div className="min-w-0 space-y-6">
          <p className="text-sm text-slate-600">
            <span className="text-lg font-semibold text-slate-900" data-testid="link-clicks-all-time">
              {link.clicks.toLocaleString("en")}
            </span>{" "}
            clicks all time
          </p>
          {scans && <ScanFigures answer={scans} />}
          <AnalyticsView
            report={report}
            basePath={`/w/${slug}/links/${link.id}`}
            exportPath={`/w/${slug}/analytics/export`}
            fixed={["link", "domain"]}
            title="Clicks"
            viewAll={all}
          />
          {link.variants && perDestination && <VariantFigures variants={link.variants} answer={perDestination} />}
          <Card title="Details">
            <dl className="divide-y divide-slate-100 text-sm">
              {details.map(([k, v]) => (
                <div key={k} className="grid gap-1 py-2 sm:grid-cols-[9rem_1fr]">
                  <dt className="text-slate-500">{k}</dt>
                  <dd className="min-w-0 text-slate-900">{v}</dd>
                </div>
              ))}
            </dl>
          </Card>
        </div>
        {/* sized to its content, not stretched down the column */}
        <div className="self-start">
          <Card title="QR code">
            <QrDesigner
              value={qrUrl(link.short)}
              fileName={`qr-${link.code}`}
              logoUrl={logoVersion === null ? null : `/w/${slug}/logo?v=${logoVersion}`}
              settingsHref={`/w/${slug}/settings#qr-logo`}
            />
          </Card>
        </div>
      </div>
    </>
  );
}
