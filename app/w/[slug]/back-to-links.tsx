"use client";
import { useParams } from "next/navigation";
import { TextLink } from "@/components/ui";

/** A way back for the workspace's not-found page, which gets no params of its own. */
export function BackToLinks() {
  const { slug } = useParams<{ slug: string }>();
  return <TextLink href={`/w/${slug}/links`}>Back to the links</TextLink>;
}
