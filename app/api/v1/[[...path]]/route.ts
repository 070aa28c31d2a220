import { unknownPath } from "@/lib/api/handler";

// Any other /api/v1 path: 404 not_found (after authentication and the limiter, like every API answer).
export const GET = unknownPath;
export const POST = unknownPath;
export const PUT = unknownPath;
export const PATCH = unknownPath;
export const DELETE = unknownPath;
