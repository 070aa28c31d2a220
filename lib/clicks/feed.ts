// The click-event feed for lib/clicks' readers (the link.clicked cursors): stored click events in
// commit order after a position, and the named cursors in analytics.click_cursor. It lives in the
// analytics store (the only code naming analytics.* tables, lib/analytics/store/feed.ts), which the
// ClickHouse sink reads too; this is its entry for lib/clicks.
export {
  advanceCursor,
  deleteCursor,
  ensureCursor,
  FEED_READ_MAX,
  FEED_START,
  feedHead,
  pruneFedClickEvents,
  readClickEventsAfter,
  readCursor,
  type FedClickEvent,
  type FeedPosition,
} from "../analytics/store/feed.ts";
