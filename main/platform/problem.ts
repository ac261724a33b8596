// RFC 9457 problem details for every refusal of the control API.
import type { Problem } from '../../shared/config/problems';
import type { ProblemDetails } from '../../shared/controlApi';

export class ProblemError extends Error {
  constructor(
    readonly problem: ProblemDetails,
    /** Headers the answer must carry (Allow on a 405). */
    readonly headers: Record<string, string> = {},
  ) {
    super(problem.detail);
  }
}

const TYPE_BASE = 'urn:cdc-admin:problem:';

export const problem = {
  badRequest: (detail: string) =>
    new ProblemError({ type: TYPE_BASE + 'malformed', title: 'Malformed request', status: 400, detail }),
  unauthorized: () =>
    new ProblemError({
      type: TYPE_BASE + 'unauthorized',
      title: 'Unauthorized',
      status: 401,
      detail: 'Send the engine token in the Authorization header: "Bearer <token>".',
    }),
  notFound: (detail: string) =>
    new ProblemError({ type: TYPE_BASE + 'not-found', title: 'Not found', status: 404, detail }),
  methodNotAllowed: (allowed: string[]) =>
    new ProblemError(
      {
        type: TYPE_BASE + 'method-not-allowed',
        title: 'Method not allowed',
        status: 405,
        detail: `This resource accepts ${allowed.join(', ')}.`,
      },
      { Allow: allowed.join(', ') },
    ),
  /** A clash with what the engine holds; `pointer` names the field to change, when one is to blame. */
  conflict: (detail: string, pointer?: string) =>
    new ProblemError({
      type: TYPE_BASE + 'conflict',
      title: 'Conflict',
      status: 409,
      detail,
      ...(pointer !== undefined && { errors: [{ pointer, detail }] }),
    }),
  invalid: (problems: Problem[]) =>
    new ProblemError({
      type: TYPE_BASE + 'invalid-values',
      title: 'Invalid values',
      status: 422,
      detail:
        problems.length === 1
          ? (problems[0]?.message ?? '')
          : `${problems.length} values are invalid; see errors.`,
      errors: problems.map((p) => ({ pointer: p.pointer, detail: p.message })),
    }),
  unavailable: (detail: string) =>
    new ProblemError({ type: TYPE_BASE + 'not-available', title: 'Not available', status: 501, detail }),
};
