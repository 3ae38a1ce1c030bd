# Data-mining flow sizes: the flow-size distribution of the data-mining cluster measured in
# A. Greenberg et al., "VL2: A Scalable and Flexible Data Center Network", ACM SIGCOMM 2009,
# Figure 2 (flow size PDF/CDF), as later papers use it for the "data mining" workload
# (e.g. M. Alizadeh et al., "pFabric", ACM SIGCOMM 2013, §5). Most flows are a few
# kilobytes while most bytes are in flows of 100 MB and more.
# Points read from the published figure by the packetsim authors and rounded; the mean of
# the distribution as sampled (linear between points) is 7.67 MB (the papers quote ~7.4 MB).
# Format: flow size in bytes, cumulative probability (linear between points).
100 0
1000 0.50
2000 0.60
3000 0.70
7000 0.80
400000 0.90
3000000 0.95
100000000 0.99
1000000000 1
