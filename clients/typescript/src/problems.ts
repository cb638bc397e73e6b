/**
 * Problem responses (RFC 9457, `application/problem+json`) as a typed exception.
 *
 * Every Tabula error is a problem: a stable `type` URI (`https://tabula.dev/problems/<slug>`),
 * a `title`, the `status` and a `detail`; some add members of their own (a version conflict's
 * `current_version`, an invalid record's `first_bad_event`). `ok()` unwraps an openapi-fetch
 * result into its data or throws a `ProblemError`.
 */

import type { components } from "./schema.js";

export type Problem = components["schemas"]["Problem"];

const PREFIX = "https://tabula.dev/problems/";

/** A refused request: the problem's standard members, and any others in `extra`. */
export class ProblemError extends Error {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance: string | undefined;
  /** Members beyond the standard five, e.g. `current_version` on a 409 version-conflict. */
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(problem: {
    type: string;
    title: string;
    status: number;
    detail?: string;
    instance?: string;
    extra?: Record<string, unknown>;
  }) {
    super(`${problem.status} ${problem.title}${problem.detail ? `: ${problem.detail}` : ""}`);
    this.name = "ProblemError";
    this.type = problem.type;
    this.title = problem.title;
    this.status = problem.status;
    this.detail = problem.detail ?? "";
    this.instance = problem.instance;
    this.extra = problem.extra ?? {};
  }

  /** The type's last part (`version-conflict`), or the whole type when it is not Tabula's. */
  get slug(): string {
    return this.type.startsWith(PREFIX) ? this.type.slice(PREFIX.length) : this.type;
  }

  /**
   * The problem an error response carries: its body (parsed JSON, or text) as a problem when
   * it is one, else a problem made of the HTTP status (`about:blank`, as RFC 9457 says).
   */
  static from(body: unknown, response: Response): ProblemError {
    if (isRecord(body) && typeof body.type === "string" && typeof body.title === "string") {
      const { type, title, status, detail, instance, ...extra } = body;
      return new ProblemError({
        type,
        title,
        status: typeof status === "number" ? status : response.status,
        detail: typeof detail === "string" ? detail : "",
        instance: typeof instance === "string" ? instance : undefined,
        extra,
      });
    }
    return new ProblemError({
      type: "about:blank",
      title: response.statusText || `HTTP ${response.status}`,
      status: response.status,
      detail: typeof body === "string" ? body.slice(0, 500) : "",
    });
  }
}

/** What every openapi-fetch call resolves to, as far as `ok` reads it. */
export interface Result {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The data of a successful call; throws `ProblemError` for an error response. */
export async function ok<R extends Result>(
  call: Promise<R> | R,
): Promise<Exclude<R["data"], undefined>> {
  const result = await call;
  if (result.error !== undefined || !result.response.ok) {
    throw ProblemError.from(result.error, result.response);
  }
  if (result.data === undefined) {
    throw new Error(`${result.response.status} with an empty body from ${result.response.url}`);
  }
  return result.data as Exclude<R["data"], undefined>;
}

/** Whether `error` is a `ProblemError` of the given slug (`"version-conflict"`, ...). */
export function isProblem(error: unknown, slug?: string): error is ProblemError {
  return error instanceof ProblemError && (slug === undefined || error.slug === slug);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
