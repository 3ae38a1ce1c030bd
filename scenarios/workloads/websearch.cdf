# Web-search flow sizes: the background (query and update) flows of the web-search cluster
# measured in M. Alizadeh et al., "Data Center TCP (DCTCP)", ACM SIGCOMM 2010, Figure 4
# (flow-size distribution of background traffic), as later papers use it for the
# "web search" workload (e.g. M. Alizadeh et al., "pFabric", ACM SIGCOMM 2013, §5).
# Points read from the published figure by the packetsim authors and rounded (the lowest
# size, where the curve leaves 0, is the least certain reading); the mean of the
# distribution as sampled (linear between points) is 1.71 MB (the papers quote ~1.6 MB).
# Format: flow size in bytes, cumulative probability (linear between points).
6000 0
10000 0.15
20000 0.20
30000 0.30
50000 0.40
80000 0.53
200000 0.60
1000000 0.70
2000000 0.80
5000000 0.90
10000000 0.97
30000000 1
