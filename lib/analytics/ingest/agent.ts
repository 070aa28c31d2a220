import { isbot } from "isbot";
import UAParser from "ua-parser-js";
import type { Device } from "../model.ts";

// What a User-Agent says about the visitor, through maintained libraries: `isbot` judges bots,
// crawlers, link-preview fetchers and HTTP libraries; `ua-parser-js` 1.x (MIT; 2.x is AGPL and
// must not be used) names the browser, OS and device type.

export type AgentInfo = { device: Device; browser: string | null; os: string | null };

/** A small memo per User-Agent string: most visits repeat a few thousand agents, and the parsers' regexes are the cost. */
function memo<T>(fn: (ua: string) => T, size = 2000): (ua: string) => T {
  const seen = new Map<string, T>();
  return (ua) => {
    let v = seen.get(ua);
    if (v === undefined) {
      if (seen.size >= size) seen.clear();
      seen.set(ua, (v = fn(ua)));
    }
    return v;
  };
}

const botMemo = memo((ua) => isbot(ua));

/** A known bot, crawler, link-preview fetcher or HTTP library (curl, python-requests, ...). */
export function isBotAgent(userAgent: string | undefined): boolean {
  return Boolean(userAgent) && botMemo(userAgent!);
}

// ua-parser-js reports no device type for desktops: a desktop operating system decides it.
const DESKTOP_OS = new Set([
  "Windows",
  "macOS",
  "Linux",
  "Ubuntu",
  "Debian",
  "Fedora",
  "Chrome OS",
  "Chromium OS",
  "FreeBSD",
  "OpenBSD",
  "NetBSD",
  "Mint",
  "Arch",
  "Gentoo",
  "Solaris",
]);
// shorter names that match what people type in a filter
const OS_NAMES: Record<string, string> = { "Mac OS": "macOS" };
const BROWSER_NAMES: Record<string, string> = {
  "Mobile Safari": "Safari",
  "Mobile Firefox": "Firefox",
  "Chrome Headless": "Chrome",
  "Chrome WebView": "Chrome",
};

export function describeAgent(userAgent: string | undefined): AgentInfo {
  if (!userAgent) return { device: "other", browser: null, os: null };
  return describeMemo(userAgent);
}

const describeMemo = memo(parseAgent);

function parseAgent(userAgent: string): AgentInfo {
  const r = new UAParser(userAgent.slice(0, 512)).getResult();
  const os = r.os.name ? (OS_NAMES[r.os.name] ?? r.os.name) : null;
  const browser = r.browser.name ? (BROWSER_NAMES[r.browser.name] ?? r.browser.name) : null;
  let device: Device;
  if (r.device.type === "mobile") device = "mobile";
  else if (r.device.type === "tablet") device = "tablet";
  else if (r.device.type)
    device = "other"; // console, smarttv, wearable, embedded
  else if (os && DESKTOP_OS.has(os)) device = "desktop";
  else device = "other";
  return { device, browser, os };
}
