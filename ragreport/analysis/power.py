"""The power of a paired comparison: what "no clear difference" could have seen (docs/conventions.md section 20.3).

With n paired queries whose differences (run minus baseline) have sample standard deviation s,
a two-sided test at level a finds a true mean difference delta with probability 1 - b when

    delta >= (z(1 - a/2) + z(1 - b)) * s / sqrt(n)      (the detectable difference), or
    n >= ((z(1 - a/2) + z(1 - b)) * s / delta)^2        (the queries needed for delta),

the normal approximation of Webber, Moffat and Zobel ("Statistical power in retrieval
experimentation", CIKM 2008) and of Sakai's topic-set-size design (Information Retrieval Journal 19,
2016), with Student's t quantiles on n - 1 degrees of freedom in place of z (the spread is estimated
from the same n queries; Abramowitz and Stegun 26.7.5), which the report's own test confirms by
simulation where z would promise a few points of power too many. The level is the report's alpha
after the family's correction in its Bonferroni form, alpha / m over the m comparisons corrected
together: Holm's first step, and never less strict than any of its steps, so the figure does not
promise more than the test gives. A randomization test over n queries cannot give a p-value below 2
/ 2^n (every sign vector enumerated) or 1 / (1 + permutations) (drawn): when that is not below the
level, no difference is detectable, and the queries needed are at least the n that lets it be.
"""

from __future__ import annotations

import math
from statistics import NormalDist

#: The power the report's figures are stated at: the chance of finding a true difference of the
#: detectable size (Cohen's usual 0.8).
POWER = 0.8
#: The difference ``queries_needed`` is stated for when ``--min-effect`` is not given.
MIN_EFFECT = 0.02
#: The smallest ``--min-effect``: a difference of one in a million on a 0-1 metric. Below it the
#: queries needed (``(z sd / effect)^2``) pass a float's range, and no benchmark holds 10^12 queries.
MIN_EFFECT_LOW = 1e-6
#: What ``--min-effect`` (``min_effect=``, the config's ``min_effect``) takes, in words.
EFFECT_RANGE = f"a difference from {MIN_EFFECT_LOW:g} to 1"


def level(alpha: float, comparisons: int) -> float:
    """The two-sided level one comparison is read at: ``alpha / comparisons`` (Bonferroni's form
    of the family's correction; ``comparisons`` is 1 without one)."""
    return alpha / max(1, comparisons)


def t_quantile(p: float, df: float) -> float:
    """Student's t quantile by the Cornish-Fisher expansion of Abramowitz and Stegun 26.7.5 (within
    2e-4 of the exact quantile up to 0.9965 from 10 degrees of freedom on, 5e-3 at 5; the normal
    quantile when ``df`` is infinite)."""
    x = NormalDist().inv_cdf(p)
    if not math.isfinite(df):
        return x
    g1 = (x**3 + x) / 4
    g2 = (5 * x**5 + 16 * x**3 + 3 * x) / 96
    g3 = (3 * x**7 + 19 * x**5 + 17 * x**3 - 15 * x) / 384
    g4 = (79 * x**9 + 776 * x**7 + 1482 * x**5 - 1920 * x**3 - 945 * x) / 92160
    return x + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def _z(alpha_each: float, power: float, n: float = math.inf) -> float:
    df = max(n - 1, 1.0)
    return t_quantile(1.0 - alpha_each / 2.0, df) + t_quantile(power, df)


def smallest_p(n: int, permutations: int) -> float:
    """The smallest p-value the randomization test can give over ``n`` queries."""
    if n <= 0:
        return 1.0
    if n <= 30 and 2**n <= permutations:
        return 2.0 / 2**n  # the identity and its mirror both reach the observed statistic
    return 1.0 / (1.0 + permutations)


def least_queries(alpha_each: float, permutations: int) -> int:
    """The fewest queries over which the randomization test can reach ``alpha_each`` at all."""
    n = 1
    while smallest_p(n, permutations) >= alpha_each and n < 64:
        n += 1
    return n


def detectable(sd: float, n: int, alpha_each: float, permutations: int, power: float = POWER) -> float | None:
    """The smallest true mean difference found with probability ``power``; None when the test
    cannot reach ``alpha_each`` over ``n`` queries (or there are none).

    Examples
    --------
    >>> round(detectable(0.2, 300, 0.05 / 7, 10_000), 5)  # 300 queries, a family of 7
    0.04101
    """
    if n < 1 or not math.isfinite(sd) or smallest_p(n, permutations) >= alpha_each:
        return None
    return _z(alpha_each, power, n) * sd / math.sqrt(n)


def queries_needed(sd: float, effect: float, alpha_each: float, permutations: int, power: float = POWER) -> int | None:
    """The queries that would find a true difference of ``effect`` with probability ``power``
    (never fewer than the test needs to reach ``alpha_each`` at all); None without a spread.

    Examples
    --------
    >>> queries_needed(0.2, 0.02, 0.05 / 7, 10_000)
    1251
    """
    if not math.isfinite(sd) or effect <= 0:
        return None
    needed = math.ceil((_z(alpha_each, power) * sd / effect) ** 2)
    for _ in range(8):  # the t quantiles depend on n: a few fixed-point steps settle it
        again = math.ceil((_z(alpha_each, power, needed) * sd / effect) ** 2)
        if again == needed:
            break
        needed = again
    return max(needed, least_queries(alpha_each, permutations))


def queries_to_halve(n: int) -> int:
    """The queries that would halve a band over ``n`` queries: a band's width shrinks as 1/sqrt(n)."""
    return 4 * n
