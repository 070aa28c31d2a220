import { PageSkeleton } from "@/components/progress";

export default function Loading() {
  return <PageSkeleton />;
}
