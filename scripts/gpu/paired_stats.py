"""Medians and spreads of the GPU scripts' paired measurements (standin_overhead_inproc.py,
backend_call_cost.py, standin_predict_score.py): one quantile rule for all of them."""
import statistics


def quantile(xs, q):
    """Linear interpolation between the two nearest ranks (numpy's default), q in [0, 1]."""
    s = sorted(xs)
    k = (len(s) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def spread(xs):
    """'median (25-75 %: p25-p75, n steps)'."""
    return "%.4f (25-75 %%: %.4f-%.4f, %d steps)" % (statistics.median(xs), quantile(xs, 0.25), quantile(xs, 0.75), len(xs))
