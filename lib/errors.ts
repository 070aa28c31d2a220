// Failures of the app and the admin CLI that are not API answers (the API's are ApiError).
export type AppErrorCode = "validation" | "forbidden" | "not_found" | "conflict" | "limit" | "feature";

export class AppError extends Error {
  constructor(readonly code: AppErrorCode, message: string) {
    super(message);
  }
}

export function isAppError(e: unknown): e is AppError {
  return typeof e === "object" && e !== null && "code" in e && typeof (e as AppError).code === "string" && e instanceof Error && !("body" in e);
}
