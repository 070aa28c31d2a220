"use client";

// How Slack, X and LinkedIn draw a link: the image across the top, the site's host, the title in
// bold and a line or two of description. Shown while the form is being typed in.

export function PreviewCard({ title, description, image, url }: { title: string; description: string; image: string; url: string }) {
  let host = "";
  try {
    host = new URL(url).hostname;
  } catch {
    host = url;
  }
  const showImage = /^https:\/\/[^\s]+$/.test(image.trim());
  return (
    <figure className="w-full max-w-md overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm" data-testid="preview-card">
      {showImage ? (
        // a plain img: the image may be on any https host the user names
        <img src={image.trim()} alt="" className="aspect-[1.91/1] w-full bg-slate-100 object-cover" referrerPolicy="no-referrer" />
      ) : (
        <div className="flex aspect-[1.91/1] w-full items-center justify-center bg-slate-100 text-xs text-slate-700">No image</div>
      )}
      <figcaption className="space-y-1 p-3">
        <p className="truncate text-xs uppercase text-slate-500">{host || "example.com"}</p>
        <p className="line-clamp-2 text-sm font-semibold text-slate-900" data-testid="preview-card-title">
          {title.trim() || "Title"}
        </p>
        <p className="line-clamp-2 text-xs text-slate-600" data-testid="preview-card-description">
          {description.trim() || "Description"}
        </p>
      </figcaption>
    </figure>
  );
}
