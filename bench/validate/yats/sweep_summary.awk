# Means over seeds of sweep.sh's (or examples/atm_delay.rs's) lines, one row per D, B, T, WND:
# loads, cells lost, their ratio, the sender-1 goodput ratio (100 ms / 450 ms), idle gaps per
# run and whether spec 1 §5.2's S7 bands hold (both loads in [0.4, 0.8], the 100 ms load
# higher, goodput ratio in [1.5, 2.6], loss ratio > 1.5).
{
  k = $1 " " $4 " " $5 " " $6; r = $2
  if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
  n[k, r]++; L[k, r] += $7; X[k, r] += $8; G[k, r] += $9; TH[k, r] += $12
}
END {
  printf "%-20s %6s %6s %7s %7s %5s %5s %6s %6s %s\n", "D B T WND", "ld450", "ld100", "loss450", "loss100", "lossR", "thrR", "gap450", "gap100", "S7"
  for (i = 1; i <= nk; i++) {
    k = order[i]; a = n[k, "0.45"]; b = n[k, "0.1"]
    if (!a || !b) continue
    l1 = L[k, "0.45"] / a; l2 = L[k, "0.1"] / b; x1 = X[k, "0.45"] / a; x2 = X[k, "0.1"] / b
    tr = TH[k, "0.1"] / b / (TH[k, "0.45"] / a); lr = x1 > 0 ? x2 / x1 : 0
    ok = (l1 >= 0.4 && l1 <= 0.8 && l2 >= 0.4 && l2 <= 0.8 && l2 > l1 && tr >= 1.5 && tr <= 2.6 && lr > 1.5) ? "bands" : "-"
    printf "%-20s %6.3f %6.3f %7.0f %7.0f %5.2f %5.2f %6.1f %6.1f %s\n", k, l1, l2, x1, x2, lr, tr, G[k, "0.45"] / a, G[k, "0.1"] / b, ok
  }
}
