"""Mean and 95% confidence half-width (Student t) for the tables of this folder."""
import math
import statistics

# Student t, 97.5% quantile, by degrees of freedom (1-30; above 30 the normal 1.96 is within 4%).
T975 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
        2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
        2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def ci95(xs):
    """Half-width of the 95% CI of the mean of xs (nan for fewer than 2 values)."""
    n = len(xs)
    if n < 2:
        return float("nan")
    t = T975[n - 1] if n - 1 < len(T975) else 1.96
    return t * statistics.stdev(xs) / math.sqrt(n)
