// Random row filters for property tests (docs/shaping.md, "Row filters"): `and`, `or` and `not` over
// the leaves a test gives, small enough to read when fast-check shrinks one.
import fc from 'fast-check';
import type { FilterExpr } from '../../shared/rowFilter';

export const filterExpressions = (leaf: fc.Arbitrary<FilterExpr>): fc.Arbitrary<FilterExpr> =>
  fc.letrec<{ e: FilterExpr }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), left: tie('e'), right: tie('e') }),
      fc.record({ kind: fc.constant('not' as const), inner: tie('e') }),
    ),
  })).e;
