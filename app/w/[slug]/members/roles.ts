import type { MemberRow } from "@/lib/members";

export type Role = MemberRow["role"];

export const ROLE_LABEL: Record<Role, string> = { owner: "Owner", admin: "Admin", member: "Member" };
