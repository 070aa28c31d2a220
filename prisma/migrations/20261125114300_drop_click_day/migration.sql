-- "ClickDay" (per-day click totals per link) was written by every click flush and read by nothing:
-- per-day counts come from analytics.click_event and its day rollups (lib/analytics).
-- DropForeignKey
ALTER TABLE "ClickDay" DROP CONSTRAINT "ClickDay_linkId_fkey";

-- DropTable
DROP TABLE "ClickDay";
